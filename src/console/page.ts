import type { FastifyReply } from 'fastify';
import { html, SafeHtml } from '../http/pages/html.ts';

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

/** The portal's page headers (src/http/pages/headers.ts) with the console's CSP. */
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
  /** Scripts of this view, under /console/assets/ (console.js, shared by every page, comes first by itself). */
  scripts?: string[];
  /** The server's clock when the page was made, for the ages it shows ("12 s ago"), which its script keeps current. */
  now?: Date;
  styles?: string[];
}

export function renderConsolePage(p: ConsolePage): string {
  const nav = p.csrf
    ? html`<nav aria-label="Console"><strong>CVD console</strong>
${VIEWS.map(([id, name]) => html`<a href="/console/${id}"${p.view === id ? html` aria-current="page"` : ''}>${name}</a>`)}
<button type="button" id="tz-switch" class="tz" aria-pressed="false" title="Show every time in UTC or in this browser's time zone">Times: UTC</button>
<form method="post" action="/console/sign-out" class="inline"><input type="hidden" name="csrf" value="${p.csrf}"><button type="submit">Sign out</button></form></nav>`
    : '';
  return `<!DOCTYPE html>\n${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${p.csrf ? html`<meta name="csrf" content="${p.csrf}">` : ''}
${p.now ? html`<meta name="server-time" content="${p.now.toISOString()}">` : ''}
<title>${p.title} · CVD console</title>
<link rel="stylesheet" href="/console/assets/console.css">
${(p.styles ?? []).map((s) => html`<link rel="stylesheet" href="/console/assets/${s}">`)}
${(p.csrf ? ['console.js', ...(p.scripts ?? []).filter((s) => s !== 'console.js')] : (p.scripts ?? [])).map((s) => html`<script src="/console/assets/${s}" defer></script>`)}
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

/**
 * A time, in the one format of the console: `2026-11-25 10:05:00 UTC`, a dash for none. The
 * pages' script (console.js) shows every such time in the browser's own zone instead
 * (`2026-11-25 11:05:00 UTC+01:00`) when the operator switches to it.
 */
export function when(iso: string | null | undefined): SafeHtml | string {
  return iso ? html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>` : '—';
}

/** How long before `now` (at least 0): "12 s ago", "5 min ago", "3 h ago", "4 d ago" (console.js says the same). */
export function ageText(iso: string, now: Date): string {
  const s = Math.max(0, Math.floor((now.getTime() - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** An age that the page's script keeps current, with the time itself on hover. */
export function ago(iso: string | null | undefined, now: Date): SafeHtml | string {
  return iso ? html`<time datetime="${iso}" data-age title="${iso.slice(0, 19).replace('T', ' ')} UTC">${ageText(iso, now)}</time>` : '—';
}

/** A query string from the set parameters (for pagination and filter links). */
export function query(params: Record<string, string | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}
