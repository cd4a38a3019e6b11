import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addConsumer, type TestConsumer } from '../helpers/app.ts';
import { startLiveApp, type LiveApp } from '../consent/harness.ts';

/**
 * The whole consent flow in a real browser: Debian's chromium (installed by apt, never
 * downloaded) driven by playwright-core. A local HTTP server plays the consumer application:
 * it sends the user to the portal and receives the redirect at the end.
 */
const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.CI) throw new Error(`${CHROMIUM} is missing: CI must install chromium (apt-get install chromium)`);
const title = available
  ? 'consent flow in a real browser (chromium)'
  : `consent flow in a real browser: SKIPPED because ${CHROMIUM} is not installed (apt-get install chromium)`;

const VIN = 'V1RTUALV1N0000003';

describe.skipIf(!available)(title, () => {
  let t: LiveApp;
  let consumerApp: Server;
  let consumerOrigin: string;
  let consumer: TestConsumer;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    t = await startLiveApp();
    // The consumer application: /start forwards the user to the portal (spec 4.1 step 1),
    // /cb is the whitelisted redirect URL (loopback http, allowed for this reason).
    consumerApp = createServer((req, res) => {
      const url = new URL(req.url ?? '/', consumerOrigin);
      if (url.pathname === '/start') {
        const portal = new URL(`${t.origin}/provision`);
        portal.searchParams.set('consumerId', consumer.consumerId);
        portal.searchParams.set('subscriptionId', consumer.subscriptionId);
        portal.searchParams.set('redirectUrl', `${consumerOrigin}/cb`);
        portal.searchParams.set('vin', VIN);
        portal.searchParams.set('state', 'consumer-state-42');
        res.writeHead(302, { location: portal.toString() }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!DOCTYPE html><title>Back at the consumer</title><h1>Back at the consumer</h1>');
    });
    await new Promise<void>((resolve) => consumerApp.listen(0, '127.0.0.1', resolve));
    consumerOrigin = `http://127.0.0.1:${(consumerApp.address() as AddressInfo).port}`;
    consumer = await addConsumer(t, { name: 'Fleet App GmbH', dataItems: ['crashseverity', 'sochighlevel', 'batteryvoltage'], allowedRedirectUrls: [`${consumerOrigin}/cb`] });

    profile = mkdtempSync(join(tmpdir(), 'cvd-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    // A navigation the page's CSP blocks just never happens: fail fast instead of at the test timeout.
    context.setDefaultTimeout(10_000);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await new Promise<void>((resolve) => (consumerApp ? consumerApp.close(() => resolve()) : resolve()));
    await t?.cleanup();
  });

  it('consumer → portal → approve → manufacturer login and consent → back with code and consent_id → confirmation 200', async () => {
    const page = await context.newPage();
    const blocked: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused/i.test(m.text())) blocked.push(m.text());
    });
    await page.goto(`${consumerOrigin}/start`);

    // The portal: items, parties, rights; the user types the missing details.
    expect(page.url().startsWith(`${t.origin}/provision?`)).toBe(true);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain('Fleet App GmbH');
    await expect(page.getByText('Virtual Motors', { exact: false }).first().isVisible()).resolves.toBe(true);
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByLabel('E-mail address').fill('ada@example.com');
    await page.getByRole('button', { name: /Approve/ }).click();

    // The manufacturer: login, the VIN pre-filled, every item ticked.
    await page.waitForURL(`${t.origin}/oem/virtual/authorize?**`);
    await expect(page.getByLabel('Vehicle identification number (VIN)').inputValue()).resolves.toBe(VIN);
    for (const name of ['crashseverity', 'sochighlevel', 'batteryvoltage']) {
      await expect(page.locator(`input[type=checkbox][value=${name}]`).isChecked()).resolves.toBe(true);
    }
    await page.getByLabel('User name').fill('ada');
    await page.getByLabel('Password').fill('any password');
    await page.getByRole('button', { name: 'Allow' }).click();

    // Back at the consumer with code and consent_id (and its own state).
    await page.waitForURL(`${consumerOrigin}/cb?**`);
    const back = new URL(page.url()).searchParams;
    expect(back.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(back.get('consent_id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(back.get('state')).toBe('consumer-state-42');
    expect(back.has('error')).toBe(false);
    expect(blocked).toEqual([]);

    // The consumer confirms, server to server.
    const res = await fetch(`${t.origin}/api/consent/provisioning/confirmation/${back.get('code')}`, {
      method: 'POST',
      headers: { 'X-API-Key': consumer.apiKey },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ consentId: back.get('consent_id'), vin: VIN, subscriptionId: consumer.subscriptionId });
    expect((await t.services.store.consents.findActive(consumer.subscriptionId, VIN))?.state).toBe('CONFIRMED');
    await page.close();
  });

  it('reject at the portal → back at the consumer with error=rejected', async () => {
    const page = await context.newPage();
    await page.goto(`${consumerOrigin}/start`);
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.waitForURL(`${consumerOrigin}/cb?**`);
    const back = new URL(page.url()).searchParams;
    expect(back.get('error')).toBe('rejected');
    expect(back.get('error_description')).toBeTruthy();
    expect(back.get('state')).toBe('consumer-state-42');
    expect(back.has('code')).toBe(false);
    expect(back.has('consent_id')).toBe(false);
    await page.close();
  });

  it('deny at the manufacturer → back at the consumer with error=access_denied and consent_id', async () => {
    const page = await context.newPage();
    await page.goto(`${consumerOrigin}/start`);
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByLabel('E-mail address').fill('ada@example.com');
    await page.getByRole('button', { name: /Approve/ }).click();
    await page.waitForURL(`${t.origin}/oem/virtual/authorize?**`);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL(`${consumerOrigin}/cb?**`);
    const back = new URL(page.url()).searchParams;
    expect(back.get('error')).toBe('access_denied');
    expect(back.get('consent_id')).toMatch(/^[0-9a-f-]{36}$/);
    await page.close();
  });
});
