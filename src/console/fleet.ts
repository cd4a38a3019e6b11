import { html } from '../http/pages/html.ts';
import { singleValues } from '../http/single-value.ts';
import type { FleetQuery } from '../store/contract.ts';
import type { ConsolePlugin } from './context.ts';
import { fleetMap, fleetPage, KEY_ITEMS, type FleetRow } from './fleet-data.ts';
import { query, sendPage, when } from './page.ts';
import { valueText } from './values.ts';
import { vinLink } from './vehicle.ts';
import type { AdapterRegistry } from '../adapters/registry.ts';

export const FLEET_PAGE_SIZE = 50;
const VIN_PREFIX = /^[A-HJ-NPR-Z0-9]{1,17}$/;

const FLEET_PARAMS = ['manufacturer', 'vin', 'after'] as const;
type FleetParams = Partial<Record<(typeof FLEET_PARAMS)[number], string>>;

/** The store query of the page's filters; an error message for a search that cannot be a VIN. */
function toQuery(adapters: AdapterRegistry, q: FleetParams): { query: FleetQuery; error: string | null } {
  const vin = (q.vin ?? '').trim().toUpperCase();
  const manufacturer = q.manufacturer && adapters.get(q.manufacturer) ? q.manufacturer : undefined;
  const error = vin && !VIN_PREFIX.test(vin) ? 'A VIN has up to 17 digits and capital letters except I, O and Q.' : null;
  const after = q.after && VIN_PREFIX.test(q.after) ? q.after : undefined;
  return {
    query: { limit: FLEET_PAGE_SIZE, ...(manufacturer ? { manufacturer } : {}), ...(vin && !error ? { vinPrefix: vin } : {}), ...(after ? { after } : {}) },
    error,
  };
}

const row = (r: FleetRow) => html`<tr data-vin="${r.vin}">
<td>${vinLink(r.vin)}</td>
<td>${r.manufacturer ?? '—'}</td>
<td>${r.activations.length ? r.activations.map((a) => html`<div><span class="state-${a.status}">${a.status}</span> <span class="muted">${a.subscriptionId.slice(0, 8)}</span></div>`) : '—'}</td>
<td>${r.consents.length ? r.consents.map((c) => html`<div><span class="state-${c.state}">${c.state}</span> <span class="muted">${c.subscriptionId.slice(0, 8)}</span></div>`) : '—'}</td>
<td>${when(r.lastReceivedAt)}</td>
<td>${KEY_ITEMS.filter((i) => r.latest[i]).map((i) => html`<div><span class="muted">${i}</span> ${valueText(i, r.latest[i]!)}</div>`)}</td>
</tr>`;

/** GET /console/fleet (the table, one store page at a time) and GET /console/fleet/map.json (the map's data). */
export const fleetView: ConsolePlugin = async (app, { ctx }) => {
  app.get('/console', async (_request, reply) => reply.code(303).header('location', '/console/fleet').send());

  app.get('/console/fleet', async (request, reply) => {
    const params = singleValues(request.query, FLEET_PARAMS);
    const { query: q, error } = toQuery(ctx.adapters, params);
    const { rows, nextAfter } = await fleetPage(ctx.store, q);
    const filters = { manufacturer: q.manufacturer, vin: q.vinPrefix };
    const body = html`<form method="get" action="/console/fleet" class="filters" role="search">
<label>Manufacturer<select name="manufacturer"><option value="">all</option>${ctx.adapters.list().map((a) => a.manifest.id).map((id) => html`<option value="${id}"${id === q.manufacturer ? html` selected` : ''}>${id}</option>`)}</select></label>
<label>VIN starts with<input type="search" name="vin" value="${params.vin ?? ''}" maxlength="17" spellcheck="false"></label>
<button type="submit">Filter</button>
</form>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<div class="fleet">
<section aria-label="Vehicles">
<table>
<thead><tr><th>VIN</th><th>Manufacturer</th><th>Activation</th><th>Consent</th><th>Last data</th><th>Latest values</th></tr></thead>
<tbody>${rows.length ? rows.map(row) : html`<tr><td colspan="6">No vehicle matches.</td></tr>`}</tbody>
</table>
<p class="pager">${q.after ? html`<a href="/console/fleet${query(filters)}">First page</a>` : ''}${nextAfter ? html`<a href="/console/fleet${query({ ...filters, after: nextAfter })}" rel="next">Next ${FLEET_PAGE_SIZE}</a>` : ''}</p>
</section>
<section aria-label="Map" id="map" data-src="/console/fleet/map.json${query({ ...filters, after: q.after })}">
<h2>Last positions and routes</h2>
<p class="muted">The stored positions of the vehicles on this page, refreshed every 3 seconds. Zoom and pan; vehicles close together are counted in one circle (click it to zoom in); a vehicle's label is left out where it would cover another. No map tiles: the service works without internet.</p>
<div id="map-canvas"></div>
</section>
</div>`;
    return sendPage(reply, { view: 'fleet', title: 'Fleet', csrf: request.consoleSession!.csrf, body, scripts: ['leaflet.js', 'markercluster.js', 'fleet.js'], styles: ['leaflet.css', 'markercluster.css', 'markercluster-default.css'] });
  });

  app.get('/console/fleet/map.json', async (request, reply) => {
    const { query: q } = toQuery(ctx.adapters, singleValues(request.query, FLEET_PARAMS));
    return reply.header('cache-control', 'no-store').send({ vehicles: await fleetMap(ctx.store, q) });
  });
};
