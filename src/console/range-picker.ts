import { html, type SafeHtml } from '../http/pages/html.ts';
import { query } from './page.ts';
import { RANGE_NAMES, type Range } from './vehicle-data.ts';

const LABELS: Record<Range, string> = { '1h': 'Last hour', '6h': '6 h', '24h': '24 h', '7d': '7 days' };

/** The charts' time range: links to the same page with `range`, the chosen one marked (works without script). */
export function rangePicker(path: string, chosen: Range, params: Record<string, string | undefined> = {}): SafeHtml {
  return html`<nav class="range" aria-label="Time range">${RANGE_NAMES.map(
    (r) => html`<a href="${path}${query({ ...params, range: r })}" data-range="${r}"${r === chosen ? html` aria-current="true"` : ''}>${LABELS[r]}</a>`,
  )}</nav>`;
}
