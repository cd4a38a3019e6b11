import { html } from './html.ts';
import { renderPage } from './layout.ts';

/** A page with a heading and a few paragraphs: errors, rejection, success. */
export function renderMessagePage(opts: { title: string; paragraphs: string[]; alert?: boolean }): string {
  const body = html`<h1>${opts.title}</h1>
${opts.paragraphs.map((p, i) => (i === 0 && opts.alert ? html`<p role="alert">${p}</p>` : html`<p>${p}</p>`))}`;
  return renderPage({ title: opts.title, body });
}
