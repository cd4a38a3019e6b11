import type { FastifyReply } from 'fastify';
import { html, SafeHtml } from '../consent/pages/html.ts';

/**
 * The console's CSP: the portal's (nothing third-party, no framing, no inline anything, forms
 * post only here) plus its own scripts, stylesheet and JSON calls, all served from this origin
 * (src/console/assets.ts). Inline script and style stay forbidden.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The portal's page headers (src/consent/pages/headers.ts) with the console's CSP. */
export const CONSOLE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

const VIEWS = [
  ['fleet', 'Fleet'],
  ['pipeline', 'Pipeline'],
  ['quarantine', 'Quarantine'],
  ['playground', 'Mapping playground'],
  ['mappings', 'Mappings'],
  ['consumers', 'Consumers and push'],
  ['funnel', 'Consent funnel'],
] as const;
export type ConsoleView = (typeof VIEWS)[number][0];

export interface ConsolePage {
  view: ConsoleView | null;
  title: string;
  /** The session's CSRF token (null on the sign-in page): in a meta tag for scripts, in the sign-out form. */
  csrf: string | null;
  body: SafeHtml;
  /** Scripts of this view, under /console/assets/. */
  scripts?: string[];
  styles?: string[];
}

export function renderConsolePage(p: ConsolePage): string {
  const nav = p.csrf
    ? html`<nav aria-label="Console"><strong>CVD console</strong>
${VIEWS.map(([id, name]) => html`<a href="/console/${id}"${p.view === id ? html` aria-current="page"` : ''}>${name}</a>`)}
<form method="post" action="/console/sign-out" class="inline"><input type="hidden" name="csrf" value="${p.csrf}"><button type="submit">Sign out</button></form></nav>`
    : '';
  return `<!DOCTYPE html>\n${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${p.csrf ? html`<meta name="csrf" content="${p.csrf}">` : ''}
<title>${p.title} · CVD console</title>
<link rel="stylesheet" href="/console/assets/console.css">
${(p.styles ?? []).map((s) => html`<link rel="stylesheet" href="/console/assets/${s}">`)}
${(p.scripts ?? []).map((s) => html`<script src="/console/assets/${s}" defer></script>`)}
</head>
<body>
${nav}
<main>
<h1>${p.title}</h1>
${p.body}
</main>
</body>
</html>`}`;
}

export function sendPage(reply: FastifyReply, page: ConsolePage, status = 200): FastifyReply {
  return reply.code(status).headers(CONSOLE_HEADERS).send(renderConsolePage(page));
}

/** A time for a table cell: minutes, UTC; a dash for none. */
export function when(iso: string | null | undefined): string {
  return iso ? `${iso.slice(0, 19).replace('T', ' ')} UTC` : '—';
}

/** A query string from the set parameters (for pagination and filter links). */
export function query(params: Record<string, string | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}
