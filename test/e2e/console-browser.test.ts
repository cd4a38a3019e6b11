import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/transports/http/signature.ts';
import { adapterSecret } from '../../src/adapters/secrets.ts';
import { consumerWith, REDIRECT } from '../consent/harness.ts';
import type { TestConsumer } from '../helpers/app.ts';
import { activeConsentRecord } from '../helpers/consents.ts';
import { seedVehicle, startReceiver, type Receiver } from '../push/helpers.ts';
import { BAD_SEVERITY, GOOD_SEVERITY, startConsoleService, type ConsoleService } from './console-service.ts';
import { consumerCall, waitFor } from './live-calls.ts';

/**
 * The console in a real browser (Debian's chromium, driven by playwright-core) against the
 * running service with the virtual fleet moving: sign-in, the fleet and its map (zoom,
 * clustering, an outlier), a vehicle's page, the pipeline charts and their range, the time
 * zone switch, a quarantined message fixed in the playground, reloaded and reprocessed, a dead
 * letter replayed, the funnel, and every action refused without a session or its CSRF token.
 * The screenshots of docs/console.md are taken here.
 */
const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.CI) throw new Error(`${CHROMIUM} is missing: CI must install chromium (apt-get install chromium)`);
const title = available ? 'the console in a real browser (chromium)' : `the console in a real browser: SKIPPED because ${CHROMIUM} is not installed (apt-get install chromium)`;

// The screenshots of docs/console.md: rewritten there by `npm run docs:screenshots`; a plain
// test run writes them under test-results/ so that it leaves the work tree as it was.
const SHOTS = new URL(process.env.UPDATE_SCREENSHOTS === '1' ? '../../docs/console/' : '../../test-results/console/', import.meta.url).pathname;
const S09 = 'V1RTUALV1N0000S09';
const COLLISION_VIN = 'BRLAU1EV0N1000002';
/** Vehicles of the map test: twelve around Munich's Marienplatz, eight of them within metres, and one in Lisbon. */
const MAP_PREFIX = 'BRLAU1EV0N3';
const mapVin = (n: number) => `${MAP_PREFIX}${String(n).padStart(6, '0')}`;
const MUNICH: [number, number] = [48.13743, 11.57549];

/** The boxes of the map's labels that are shown; none may overlap another. */
async function overlappingLabels(page: Page): Promise<number> {
  return page.locator('#map .leaflet-tooltip.vin-label:not(.label-hidden)').evaluateAll((labels) => {
    const boxes = labels.map((l) => l.getBoundingClientRect());
    let n = 0;
    boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b) => (n += a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom ? 1 : 0)));
    return n;
  });
}

/** Waits until the element's text matches (the pages' scripts and the workers take their time). */
async function shows(locator: Locator, pattern: RegExp, ms = 15_000): Promise<void> {
  await waitFor(async () => pattern.test((await locator.textContent()) ?? ''), `${String(locator)} to show ${pattern}`, ms);
}

describe.skipIf(!available)(title, () => {
  let svc: ConsoleService;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  let consumer: TestConsumer;
  let receiver: Receiver;
  const origin = () => svc.t.origin;
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });

  beforeAll(async () => {
    svc = await startConsoleService();
    mkdirSync(SHOTS, { recursive: true });
    profile = mkdtempSync(join(tmpdir(), 'cvd-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      acceptDownloads: true,
      viewport: { width: 1280, height: 800 },
      // The time zone switch shows local times in this zone.
      timezoneId: 'Europe/Berlin',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    const blocked: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused/i.test(m.text())) blocked.push(m.text());
    });
    page.on('pageerror', (e) => blocked.push(e.message));
    (globalThis as { consoleBlocked?: string[] }).consoleBlocked = blocked;
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await receiver?.close();
    await svc?.close();
  }, 60_000);

  it('signs in with the admin token (a wrong one is refused) and shows every vehicle with its map moving', async () => {
    await page.goto(`${origin()}/console`);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await page.getByLabel('Admin token').fill('not-the-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('not the admin token');
    await page.getByLabel('Admin token').fill('test-admin-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${origin()}/console/fleet`);

    // The simulator's vehicles appear as their data arrives.
    await waitFor(async () => {
      await page.reload();
      return (await page.locator(`tr[data-vin="${S09}"]`).count()) === 1;
    }, 'S09 in the fleet table');
    await expect(page.locator(`tr[data-vin="${S09}"]`).textContent()).resolves.toMatch(/virtual[\s\S]*mileage/);
    // Search by VIN.
    await page.getByLabel('VIN starts with').fill('v1rtualv1n0000s0');
    await page.getByRole('button', { name: 'Filter' }).click();
    const vins = await page.locator('tbody tr[data-vin]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-vin')));
    expect(vins.length).toBeGreaterThan(0);
    expect(vins.every((v) => v!.startsWith('V1RTUALV1N0000S0'))).toBe(true);

    await waitFor(async () => Number(await page.locator('#map').getAttribute('data-vehicles')) > 0, 'the map drawn');
    await expect(page.locator('#map path.track').count()).resolves.toBeGreaterThan(0);
    await expect(page.locator('#map .leaflet-control-scale-line').isVisible()).resolves.toBe(true);
    await shot('fleet');

    // The map: S09 drives (simulated time x60), so its marker moves between two refreshes.
    await page.goto(`${origin()}/console/fleet?vin=${S09}`);
    const marker = page.locator(`#map .vehicle[data-vin="${S09}"]`);
    await marker.waitFor();
    const first = await marker.getAttribute('data-lon');
    await waitFor(async () => (await marker.getAttribute('data-lon')) !== first, 'the map to move', 20_000);
  }, 90_000);

  it('the map zooms and pans, clusters close vehicles, keeps labels apart, and fits where most vehicles are despite an outlier', async () => {
    const { store } = svc.t.services;
    const at = new Date().toISOString();
    const position = (n: number, lat: number, lon: number) => ({
      vin: mapVin(n), item: 'geolocation', timestampMs: Date.parse(at), payload: { latitude: lat, longitude: lon, timestamp: at }, manufacturer: 'borealis', mappingVersion: 'test@1', receivedAt: at,
    });
    // Eight within a few metres, four 300 to 700 m away, one in Lisbon (about 2,000 km).
    const points = [
      ...Array.from({ length: 8 }, (_, i) => position(i + 1, MUNICH[0] + i * 0.00001, MUNICH[1] + i * 0.00001)),
      ...[[0.003, 0.004], [-0.004, 0.006], [0.005, -0.005], [-0.006, -0.007]].map(([dlat, dlon], i) => position(9 + i, MUNICH[0] + dlat!, MUNICH[1] + dlon!)),
      position(13, 38.7223, -9.1393),
    ];
    await store.dataPoints.insertMany(points);

    await page.goto(`${origin()}/console/fleet?vin=${MAP_PREFIX}`);
    const map = page.locator('#map');
    await waitFor(async () => (await map.getAttribute('data-vehicles')) === '13', 'the 13 vehicles on the map');
    // Fitted to Munich: Lisbon is outside the view and says so; the eight close ones are one cluster.
    await shows(map.locator('.outside'), /^1 vehicle outside this view$/);
    await expect(map.getAttribute('data-outside')).resolves.toBe('1');
    const clusterOf8 = map.locator('.marker-cluster', { hasText: /^8$/ });
    await clusterOf8.waitFor();
    await expect(map.locator(`.vehicle[data-vin="${mapVin(9)}"]`).isVisible()).resolves.toBe(true);
    expect(await overlappingLabels(page)).toBe(0);
    await expect(map.locator('.leaflet-control-scale-line').textContent()).resolves.toMatch(/^\d+ (m|km)$/);
    await shot('map');

    // Zoom out twice with the control: nearby vehicles join the clusters, labels still apart.
    const clustered = () => map.locator('.marker-cluster').evaluateAll((cs) => cs.reduce((n, c) => n + Number(c.textContent), 0));
    expect(await clustered()).toBe(8);
    const zoom = Number(await page.locator('#map-canvas').getAttribute('data-zoom'));
    for (const step of [1, 2]) {
      await map.locator('.leaflet-control-zoom-out').click();
      await waitFor(async () => Number(await page.locator('#map-canvas').getAttribute('data-zoom')) === zoom - step, `zoomed out ${step}`);
    }
    await waitFor(async () => (await clustered()) > 8, 'more vehicles clustered');
    expect(await overlappingLabels(page)).toBe(0);
    // Pan by dragging: the view moves.
    const before = await page.locator('#map-canvas .leaflet-map-pane').getAttribute('style');
    const box = (await page.locator('#map-canvas').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 120, box.y + box.height / 2 + 60, { steps: 5 });
    await page.mouse.up();
    await waitFor(async () => (await page.locator('#map-canvas .leaflet-map-pane').getAttribute('style')) !== before, 'panned');

    // The user's choice: all vehicles, Lisbon included.
    await map.getByRole('button', { name: 'All vehicles' }).click();
    await waitFor(async () => (await map.getAttribute('data-outside')) === '0', 'every vehicle in view');
    await expect(map.locator(`.vehicle[data-vin="${mapVin(13)}"]`).isVisible()).resolves.toBe(true);
    await map.getByRole('button', { name: 'Where most are' }).click();
    await waitFor(async () => (await map.getAttribute('data-outside')) === '1', 'fitted to Munich again');

    // A vehicle's popup links to its page. (The map redraws every few seconds; on a busy host a
    // redraw can close the popup between showing the link and the click, as it would under a
    // user's pointer: the user opens it again.)
    const vehiclePage = `${origin()}/console/vehicles/${mapVin(9)}`;
    for (let tries = 1; page.url() !== vehiclePage; tries++) {
      await map.locator(`.vehicle[data-vin="${mapVin(9)}"]`).click();
      const link = map.locator('.map-popup a');
      await expect(link.getAttribute('href')).resolves.toBe(`/console/vehicles/${mapVin(9)}`);
      await Promise.all([page.waitForURL(vehiclePage, { timeout: 5_000 }), link.click({ timeout: 5_000 })]).catch((err: unknown) => {
        if (tries === 3) throw err;
      });
    }
  }, 90_000);

  it('a vehicle\'s page: latest values with their age, history charts over a chosen range, its events', async () => {
    await page.goto(`${origin()}/console/fleet?vin=${S09}`);
    await page.getByRole('link', { name: S09 }).first().click();
    await page.waitForURL(`${origin()}/console/vehicles/${S09}`);
    // (The simulator's clock starts two days ago: its readings are about two days old.)
    await shows(page.locator('#latest tr[data-item="mileage"]'), /^mileage charted ✕\s*[\d.]+ km\s*\d+ (s|min|h|d) ago/);
    const chart = page.locator('[data-chart="mileage"]');
    await chart.locator('canvas').waitFor();
    await expect(page.locator('nav.range a[aria-current]').textContent()).resolves.toBe('24 h');
    // The simulator's days are not today's: its readings are in the last 7 days, not the last 24 hours.
    await page.locator('nav.range').getByRole('link', { name: '7 days' }).click();
    await page.waitForURL(`${origin()}/console/vehicles/${S09}?range=7d`);
    await waitFor(async () => Number(await page.locator('[data-chart="mileage"]').getAttribute('data-points')) > 0, 'mileage points charted');
    await shot('vehicle');
    await page.getByRole('link', { name: 'Last hour' }).click();
    await page.waitForURL(`${origin()}/console/vehicles/${S09}?range=1h`);
    await expect(page.locator('#charts').getAttribute('data-range')).resolves.toBe('1h');
    await page.locator('[data-chart="mileage"] canvas').waitFor();
    // The age counts on by itself.
    const age = page.locator('#last-data time');
    const was = await age.textContent();
    await waitFor(async () => (await age.textContent()) !== was, 'the age to count on', 5_000);
  }, 60_000);

  it('draws the pipeline charts over a chosen range, and they change while the simulator publishes', async () => {
    await page.goto(`${origin()}/console/pipeline`);
    const chart = page.locator('[data-chart="messages-in"]');
    await chart.locator('canvas').waitFor();
    const before = Number(await chart.getAttribute('data-total'));
    await waitFor(async () => Number(await chart.getAttribute('data-total')) > before, 'more messages on the chart', 20_000);
    await expect(chart.textContent()).resolves.toContain('virtual mqtt');
    for (const id of ['queues', 'latency', 'push-success', 'freshness']) await page.locator(`[data-chart="${id}"] canvas`).waitFor();
    await waitFor(async () => Number(await page.locator('[data-chart="latency"]').getAttribute('data-total')) > 0, 'a latency charted', 20_000);
    await expect(page.locator('[data-chart="freshness"]').textContent()).resolves.toContain('within 5 min');

    // The range picker: 6 hours in 5-minute buckets, and the chart still shows this hour's messages.
    await page.locator('nav.range').getByRole('link', { name: '6 h' }).click();
    await page.waitForURL(`${origin()}/console/pipeline?range=6h`);
    await waitFor(async () => (await chart.getAttribute('data-range')) === '6h' && Number(await chart.getAttribute('data-total')) > 0, 'the 6-hour chart');
    await expect(chart.locator('h2').textContent()).resolves.toContain('per 5 minutes');
    await expect(chart.getAttribute('data-points')).resolves.toBe('72');
    await page.locator('nav.range').getByRole('link', { name: '7 days' }).click();
    await waitFor(async () => (await chart.getAttribute('data-points')) === '168', 'the 7-day chart');
    await page.locator('nav.range').getByRole('link', { name: 'Last hour' }).click();
    await waitFor(async () => (await chart.getAttribute('data-points')) === '60', 'the hour chart');
    await shot('pipeline');
  }, 60_000);

  it('shows every time in one format, in UTC or in the browser\'s zone at the operator\'s choice', async () => {
    await page.goto(`${origin()}/console/fleet`);
    const switcher = page.locator('#tz-switch');
    await expect(switcher.textContent()).resolves.toBe('Times: UTC');
    const times = page.locator('main table time[datetime]:not([data-age])');
    const sample = times.first();
    await sample.waitFor();
    const iso = (await sample.getAttribute('datetime'))!;
    await expect(sample.textContent()).resolves.toBe(`${iso.slice(0, 19).replace('T', ' ')} UTC`);
    await switcher.click();
    await expect(switcher.textContent()).resolves.toBe('Times: local');
    const local = new Date(iso).toLocaleString('sv-SE', { timeZone: 'Europe/Berlin' });
    await expect(sample.textContent()).resolves.toMatch(new RegExp(`^${local} UTC\\+0[12]:00$`));
    // The choice holds on the next page, and switches back.
    await page.goto(`${origin()}/console/fleet`);
    await expect(page.locator('#tz-switch').textContent()).resolves.toBe('Times: local');
    await expect(page.locator('main time:not([data-age])').first().textContent()).resolves.toMatch(/ UTC\+0[12]:00$/);
    await page.locator('#tz-switch').click();
    await expect(page.locator('main time:not([data-age])').first().textContent()).resolves.toMatch(/ UTC$/);
  });

  it('shows a quarantined message beside its error; the playground fixes the mapping, the cases pass, and reprocessing stores it', async () => {
    const { services } = svc.t;
    const body = JSON.stringify({ records: [JSON.parse(readFileSync(join(services.paths.adapters, 'borealis', 'fixtures', 'borealis.incident.collision.json'), 'utf8'))] });
    const secret = adapterSecret(services.config, services.adapters.get('borealis')!);
    const posted = await fetch(`${origin()}/ingest/v1/borealis`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-borealis-signature': signBody(secret, Math.floor(Date.now() / 1000), body) },
      body,
    });
    expect(posted.status).toBe(202);
    await waitFor(async () => (await services.store.quarantine.list({ code: 'SCHEMA_VIOLATION', manufacturer: 'borealis' }, 1)).items[0], 'the collision in quarantine');

    await page.goto(`${origin()}/console/quarantine?code=SCHEMA_VIOLATION&manufacturer=borealis`);
    await page.locator('tbody a').first().click();
    await expect(page.locator('#code').textContent()).resolves.toBe('SCHEMA_VIOLATION');
    await expect(page.locator('#raw').textContent()).resolves.toContain(COLLISION_VIN);
    await expect(page.locator('#reason').textContent()).resolves.toContain('crashseverity');
    await shot('quarantine');
    const detailUrl = page.url();

    // The playground opens on this message and mapping: the dry run fails the same way, as does the case.
    await page.getByRole('link', { name: 'Open in the mapping playground' }).click();
    await shows(page.locator('#status'), /SCHEMA_VIOLATION/);
    await page.getByRole('button', { name: /Run borealis's cases/ }).click();
    await shows(page.locator('[data-case="borealis/cases/incident-collision.json"]'), /FAILED/);
    // The fix, typed into the mapping: the output turns valid at once, and every case passes.
    const mapping = page.locator('#mapping');
    const fixed = (await mapping.inputValue()).replace(BAD_SEVERITY, GOOD_SEVERITY);
    await mapping.fill(fixed);
    await shows(page.locator('#status'), /^Valid: 9 items/);
    await shows(page.locator('tr[data-item="crashseverity"]'), /valid/);
    await page.getByRole('button', { name: /Run borealis's cases/ }).click();
    await shows(page.locator('#cases-summary'), /^(\d+) of \1 cases pass/);
    await shot('playground');
    // The output, saved as a case file for mappings/borealis/cases/.
    await page.getByLabel('Case name').fill('collision-fixed');
    const [saved] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Save the output as a case' }).click()]);
    expect(saved.suggestedFilename()).toBe('collision-fixed.json');
    const kase = JSON.parse(readFileSync((await saved.path())!, 'utf8')) as { messageType: string; expect: { items: { item: string; payload: { value?: unknown } }[] } };
    expect(kase.messageType).toBe('incident');
    expect(kase.expect.items.find((i) => i.item === 'crashseverity')!.payload.value).toBe(2);
    // Nothing was saved on the server; the download is the fixed mapping, which the operator deploys.
    expect(readFileSync(svc.incidentMapping, 'utf8')).toContain(BAD_SEVERITY);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /^Download/ }).click()]);
    expect(download.suggestedFilename()).toBe('incident.jsonata');
    await download.saveAs(svc.incidentMapping);
    // Served without a restart: every process reloads, once borealis's cases pass with it.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Mappings' }).click();
    await page.getByRole('button', { name: 'Reload every process' }).click();
    await shows(page.locator('#reload-summary'), /^1 of 1 processes serve the files on disk\.$/);
    await expect(page.locator('#reloads tr[data-outcome="applied"]').textContent()).resolves.toMatch(/borealis incident: incident\.jsonata@\w+ → incident\.jsonata@\w+/);
    await page.goto(`${origin()}/console/mappings`);
    await shot('mappings');

    // The playground's lists follow the manufacturer picked.
    await page.goto(`${origin()}/console/playground?manufacturer=borealis&messageType=incident`);
    await page.locator('#pick select[name=manufacturer]').selectOption('kestrel');
    await waitFor(async () => (await page.locator('#pick').getAttribute('data-refreshed')) === 'kestrel', 'the lists refreshed');
    await expect(page.locator('#pick select[name=messageType] option').allTextContents()).resolves.toEqual(['signals']);
    await expect(page.locator('#pick select[name=fixture]').inputValue()).resolves.toMatch(/^kestrel\.signals\./);

    await page.goto(detailUrl);
    await page.getByRole('button', { name: 'Reprocess this message' }).click();
    await shows(page.locator('#summary'), /1 stored/, 20_000);
    await shot('reprocess');
    expect((await services.store.dataPoints.latest([COLLISION_VIN], ['crashseverity']))[0]?.payload.value).toBe(2);
    // The vehicle's page: the collision is among its events.
    await page.goto(`${origin()}/console/vehicles/${COLLISION_VIN}`);
    await expect(page.locator('#events').textContent()).resolves.toContain('accidentautomatic');
  }, 90_000);

  it('lists consumers, issues and revokes keys, and replays a dead letter from the delivery log', async () => {
    const { services } = svc.t;
    consumer = await consumerWith(svc.t, { name: 'Fleet App GmbH', dataItems: ['crashseverity'], legalBasis: 'CONTRACT', allowedRedirectUrls: [REDIRECT] });
    await seedVehicle(services, consumer.subscriptionId, S09);
    receiver = await startReceiver();
    expect((await consumerCall(svc.t, consumer, 'PUT', '/push/v1/webhook', { url: receiver.url })).status).toBe(200);
    const at = new Date().toISOString();
    const transactionId = randomUUID();
    await services.store.deliveries.insertIfAbsent({
      transactionId,
      subscriptionId: consumer.subscriptionId,
      vin: S09,
      item: 'crashseverity',
      kind: 'event',
      timestampMs: Date.parse(at),
      payload: { value: 2, timestamp: at },
      status: 'DEAD',
      attempts: [{ at, statusCode: 503, error: 'HTTP 503', durationMs: 12 }],
      lastError: 'HTTP 503',
      nextAttemptAt: null,
      createdAt: at,
      updatedAt: at,
    });

    await page.goto(`${origin()}/console/consumers`);
    await page.getByLabel('New consumer').fill('Insurer AG');
    await page.getByRole('button', { name: 'Create consumer and key' }).click();
    await shows(page.locator('#api-key'), /^\S{20,}$/);
    await page.getByRole('link', { name: /Continue to Insurer AG/ }).click();
    await page.getByRole('button', { name: 'Revoke' }).click();
    await expect(page.getByRole('button', { name: 'Revoke' }).count()).resolves.toBe(0);

    await page.goto(`${origin()}/console/consumers`);
    await page.getByRole('link', { name: 'Fleet App GmbH' }).click();
    // A new subscription, its items picked from the catalog by topic.
    await page.getByRole('checkbox', { name: 'Every item of Battery and charging' }).check();
    await page.getByRole('checkbox', { name: /^Mileage/ }).check();
    await page.getByRole('button', { name: 'Create subscription' }).click();
    const subs = await services.store.subscriptions.listByConsumer(consumer.consumerId);
    const created = subs.find((x) => x.subscriptionId !== consumer.subscriptionId)!;
    expect(created.dataItems).toEqual(expect.arrayContaining(['mileage', 'sochighlevel', 'chargingstatus']));
    expect(created.dataItems).not.toContain('geolocation');
    await page.locator(`a[href="/console/subscriptions/${consumer.subscriptionId}/deliveries"]`).click();
    const row = page.locator(`tr[data-transaction="${transactionId}"]`);
    await shows(row, /DEAD/);
    await shot('consumers');
    await row.locator('input[type=checkbox]').check();
    await page.getByRole('button', { name: 'Replay the selected' }).click();
    await shows(page.locator('#replay-summary'), /^1 of 1 queued again\.$/);
    await receiver.waitFor(1, 15_000);
    await waitFor(async () => (await services.store.deliveries.get(transactionId))?.status === 'DELIVERED', 'the replayed delivery delivered');
    await page.getByRole('link', { name: 'Back to the delivery log' }).click();
    await shows(row, /DELIVERED/);
  }, 60_000);

  it('shows the consent funnel per manufacturer', async () => {
    const { store } = svc.t.services;
    const now = new Date().toISOString();
    const base = { consumerId: consumer.consumerId, subscriptionId: consumer.subscriptionId };
    await store.consents.create(activeConsentRecord(now, { ...base, vin: S09 }));
    await store.consents.create(activeConsentRecord(now, { ...base, vin: 'V1RTUALV1N0000001', state: 'REVOKED' }));
    await store.consents.create(activeConsentRecord(now, { ...base, vin: 'V1RTUALV1N0000002', state: 'REJECTED', consentGivenAt: null, activatedAt: null }));
    await page.goto(`${origin()}/console/funnel`);
    const virtual = page.locator('tr[data-manufacturer="virtual"] td');
    await expect(virtual.allTextContents()).resolves.toEqual([expect.stringMatching(/^3/), expect.stringMatching(/^2 /), expect.stringMatching(/^2 /), expect.stringMatching(/^1 /), expect.stringMatching(/^1 /)]);
    await shot('funnel');
  });

  it('refuses every action without a session, or without the CSRF token', async () => {
    const csrf = await page.locator('meta[name=csrf]').getAttribute('content');
    const sub = consumer.subscriptionId;
    const actions: [string, Record<string, string>][] = [
      ['/console/quarantine/reprocess', { all: '1', code: 'SCHEMA_VIOLATION' }],
      ['/console/playground/run.json', {}],
      ['/console/playground/cases.json', {}],
      ['/console/playground/case.json', {}],
      ['/console/mappings/reload', {}],
      ['/console/consumers', { name: 'Mallory' }],
      [`/console/consumers/${consumer.consumerId}/keys`, {}],
      [`/console/consumers/${consumer.consumerId}/keys/${randomUUID()}/revoke`, {}],
      [`/console/consumers/${consumer.consumerId}/subscriptions`, { dataItems: 'mileage' }],
      [`/console/subscriptions/${sub}/deliveries/replay`, { all: '1' }],
      ['/console/sign-out', {}],
    ];
    const consumersBefore = (await svc.t.services.store.consumers.list()).length;
    const anonymous = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless'] });
    try {
      const stranger = await anonymous.newContext();
      for (const [path, form] of actions) {
        // No session: 401, whatever the form carries.
        expect((await stranger.request.post(`${origin()}${path}`, { form: { ...form, csrf: csrf! }, maxRedirects: 0 })).status(), path).toBe(401);
        // The signed-in browser's session, without the token or with a wrong one: 403.
        expect((await context.request.post(`${origin()}${path}`, { form, maxRedirects: 0 })).status(), path).toBe(403);
        expect((await context.request.post(`${origin()}${path}`, { form: { ...form, csrf: 'x'.repeat(43) }, maxRedirects: 0 })).status(), path).toBe(403);
        expect((await context.request.post(`${origin()}${path}`, { data: form, headers: { 'x-csrf-token': 'wrong' }, maxRedirects: 0 })).status(), path).toBe(403);
      }
      // Pages and data without a session: the sign-in page, or a 401 for the scripts' calls.
      expect((await stranger.request.get(`${origin()}/console/fleet`, { maxRedirects: 0 })).headers().location).toBe('/console/sign-in');
      expect((await stranger.request.get(`${origin()}/console/fleet/map.json`)).status()).toBe(401);
      expect((await stranger.request.get(`${origin()}/console/pipeline/series.json`)).status()).toBe(401);
    } finally {
      await anonymous.close();
    }
    expect((await svc.t.services.store.consumers.list()).length).toBe(consumersBefore);
    expect((globalThis as { consoleBlocked?: string[] }).consoleBlocked).toEqual([]);

    // Signing out ends the session: the same cookie no longer opens anything.
    await page.goto(`${origin()}/console/fleet`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${origin()}/console/sign-in`);
    await page.goto(`${origin()}/console/fleet`);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
  }, 60_000);
});
