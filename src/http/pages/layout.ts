import { createHash } from 'node:crypto';
import { html, SafeHtml } from './html.ts';

/** The one stylesheet, inline; the CSP allows exactly this text by its hash. */
const STYLE = `
body{font-family:system-ui,sans-serif;line-height:1.5;margin:0;color:#1a1a1a;background:#f6f7f9}
main{max-width:44rem;margin:0 auto;padding:1.5rem;background:#fff;min-height:100vh;box-sizing:border-box}
h1{font-size:1.6rem;margin-top:0}h2{font-size:1.2rem;margin-top:1.6rem}
dt{font-weight:600}dd{margin:0 0 .6rem 0}
details.topic{border-top:1px solid #ddd;padding:.4rem 0}details.topic summary{cursor:pointer;font-weight:600}
label{display:block;font-weight:600;margin-top:.8rem}
input[type=text],input[type=email],input[type=password]{width:100%;max-width:28rem;padding:.5rem;font-size:1rem;border:1px solid #555;border-radius:4px;box-sizing:border-box}
fieldset{border:1px solid #ccc;border-radius:4px;margin-top:1rem}
.choice{font-weight:400;margin:.2rem 0}
.error{color:#a00000;font-weight:600}
.actions{margin-top:1.5rem;display:flex;gap:1rem;flex-wrap:wrap}
button{font-size:1rem;padding:.6rem 1.2rem;border-radius:4px;border:2px solid #1a4d8f;cursor:pointer}
button.primary{background:#1a4d8f;color:#fff}button.secondary{background:#fff;color:#1a4d8f}
button:focus,input:focus{outline:3px solid #f5a623;outline-offset:2px}
.muted{color:#555;font-size:.9rem}
`;

export const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE, 'utf8').digest('base64')}'`;

export interface PageOptions {
  title: string;
  body: SafeHtml;
}

/** The HTML shell of every consent page: language, title, one <main>, no script. */
export function renderPage(opts: PageOptions): string {
  return `<!DOCTYPE html>\n${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${opts.title}</title>
<style>${new SafeHtml(STYLE)}</style>
</head>
<body>
<main>
${opts.body}
</main>
</body>
</html>`}`;
}
