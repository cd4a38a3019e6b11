import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, verifyWebhook, type CvdClient, type VehicleDataPush } from '../../clients/typescript/src/index.ts';
import { freePort } from '../helpers/free-port.ts';
import { Browser } from '../consent/harness.ts';
import { startReceiver, type Receiver } from '../push/helpers.ts';
import { ROOT, startService, type ServiceProcess } from '../ops/service-process.ts';
import { waitFor } from './live-calls.ts';

/*
 * The local try-out as a new user runs it. `node --import tsx src/server.ts`
 * (what `npm start` runs) with neither REDIS_URL nor MONGO_URL: its own Redis, SQLite, broker,
 * simulator, the demo consumer printed once, webhooks to loopback allowed without any setting.
 * The demo block's commands are run as printed (a POSIX shell, curl, the browser step by
 * following its link, the receiver in a second process); then, with the typed client, a webhook
 * to a local receiver, a test event, a sandbox crash, and the push verified with the client's
 * verifyWebhook, all within seconds.
 */
interface Step {
  commands: string[];
  url: string | undefined;
}

/** The block's steps: command lines are indented four spaces (continuations joined), prose fewer. */
function stepsOf(block: string): Map<number, Step> {
  const steps = new Map<number, Step>();
  let current: Step | undefined;
  let pending = '';
  for (const line of block.split('\n')) {
    const head = /^ (\d)\. /.exec(line);
    if (head) steps.set(Number(head[1]), (current = { commands: [], url: undefined }));
    if (!current || !/^ {4}\S/.test(line) && !pending) continue;
    const text = pending + line.trim();
    if (text.endsWith('\\')) {
      pending = `${text.slice(0, -1)}`;
      continue;
    }
    pending = '';
    if (text.startsWith('http')) current.url = text;
    else current.commands.push(text);
  }
  return steps;
}

/** Runs a command line of the block in a POSIX shell, with the variables step 1 exported. */
function sh(script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`sh exited ${code}: ${err}${out}`))));
  });
}

describe('the local try-out, as the README and the demo block say', () => {
  let service: ServiceProcess;
  let dataDir: string;
  let origin: string;
  let block = '';
  let steps: Map<number, Step>;
  let exports = '';
  let receiverProcess: ChildProcess | undefined;
  const receiverLines: string[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cvd-try-'));
    const port = await freePort();
    origin = `http://localhost:${port}`;
    // The try-out: no REDIS_URL, no MONGO_URL, no DEMO_SEED, no PUSH_ALLOW_PRIVATE_TARGETS.
    service = startService('try-out', {
      env: { DATA_DIR: dataDir, PORT: String(port), MQTT_PORT: '0', REDIS_URL: '', MONGO_URL: '', DEMO_SEED: '', PUSH_ALLOW_PRIVATE_TARGETS: '' },
    });
    block = await waitFor(async () => {
      const text = service.lines.join('\n');
      const start = text.indexOf('DEMO CONSUMER CREATED');
      const end = text.indexOf('='.repeat(78), text.indexOf(' 5. ', start));
      if (start < 0 && (await Promise.race([service.exited.then(() => true), Promise.resolve(false)]))) throw new Error(service.lines.join('\n'));
      return start >= 0 && end > start ? text.slice(start, end) : null;
    }, 'the demo block', 60_000);
    steps = stepsOf(block);
    exports = steps.get(1)!.commands[0]!;
    await waitFor(async () => (await fetch(`${origin}/ready`).catch(() => null))?.status === 200, 'ready', 30_000);
  }, 90_000);

  const stopReceiver = () => {
    if (receiverProcess?.pid === undefined || receiverProcess.exitCode !== null) return;
    try {
      // The whole group: sh, tsx and the receiver's node process.
      process.kill(-receiverProcess.pid, 'SIGTERM');
    } catch {
      // Gone already.
    }
  };

  afterAll(async () => {
    stopReceiver();
    await service?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const run = (command: string) => sh(`${exports}\n${command}`);

  it('prints five steps: pull in three, push in two', () => {
    expect([...steps.keys()]).toEqual([1, 2, 3, 4, 5]);
    expect(exports).toMatch(/^export CVD_URL='http:\/\/localhost:\d+' CVD_API_KEY='cvd_live_[^']+' CVD_SUBSCRIPTION_ID='[0-9a-f-]{36}'$/);
    expect(steps.get(2)!.url).toContain(`${origin}/provision?`);
  });

  it('pull: activate (step 1), consent in the browser (step 2), data (step 3)', async () => {
    const activated = JSON.parse(await run(steps.get(1)!.commands[1]!)) as unknown[];
    expect(activated.length).toBe(13);
    const vehicles = () => run(`curl -sS "$CVD_URL/management/v1/vehicles" -H "x-api-key: $CVD_API_KEY" -H "X-Subscription-Id: $CVD_SUBSCRIPTION_ID"`);
    await waitFor(async () => (JSON.parse(await vehicles()) as { status: string }[]).every((v) => v.status === 'ACTIVATED'), 'all ACTIVATED');

    // The browser: the portal's Approve, the manufacturer's login (any name), Allow, the demo page.
    const b = new Browser();
    const portal = await b.get(steps.get(2)!.url!);
    expect(portal.status).toBe(200);
    const hidden = (page: string) => Object.fromEntries([...page.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
    // The details the portal asks for (the link carries only the VIN).
    const approve = await b.post(`${origin}/provision`, { ...hidden(portal.body), firstName: 'Nina', lastName: 'Newcomer', email: 'nina@example.com', decision: 'approve' });
    expect(approve.status).toBe(303);
    const authorize = await b.get(approve.location!);
    const items = [...authorize.body.matchAll(/<input type="checkbox" name="item" value="([^"]*)" checked>/g)].map((m) => m[1]!);
    const vin = /name="vin" value="([^"]*)"/.exec(authorize.body)![1]!;
    const allowed = await b.post(new URL('authorize', `${approve.location!.split('/authorize')[0]}/`).toString(), {
      ...hidden(authorize.body),
      username: 'new-user',
      password: 'anything',
      vin,
      item: items,
      decision: 'allow',
    });
    const callback = await b.get(allowed.location!);
    const demoPage = await b.get(callback.location!);
    expect(demoPage.body).toContain('/delivery/v1/in-vehicle');

    const pulled = JSON.parse(await run(steps.get(3)!.commands[0]!)) as { inVehicleData: { response: Record<string, { dataPoint?: unknown }> }[] };
    expect(pulled.inVehicleData[0]!.response.mileage!.dataPoint).toBeDefined();
  });

  it('push: the receiver of step 4 registers itself, gets the test event and the crash of step 5, both verified', async () => {
    const [receiverCommand, testEvent] = steps.get(4)!.commands;
    expect(receiverCommand).toContain('npm run try:receiver');
    receiverProcess = spawn('sh', ['-c', receiverCommand!], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    receiverProcess.stdout!.on('data', (c: Buffer) => receiverLines.push(...c.toString().split('\n')));
    receiverProcess.stderr!.on('data', (c: Buffer) => receiverLines.push(...c.toString().split('\n')));
    await waitFor(async () => receiverLines.some((l) => l.startsWith('Listening on http://127.0.0.1:')), `the receiver\n${receiverLines.join('\n')}`, 30_000);

    const answer = JSON.parse(await run(testEvent!)) as { status: number; bodyExcerpt: string };
    expect(answer).toMatchObject({ status: 200, bodyExcerpt: '{"received":true}' });
    expect(receiverLines.some((l) => /^✓ .* verified push [0-9a-f-]+: TEST0000000000000 accidentautomatic \(test event\)$/.test(l))).toBe(true);

    const sent = Date.now();
    const crash = JSON.parse(await run(steps.get(5)!.commands[0]!)) as { items: { item: string; payload: { value?: unknown } }[] };
    expect(crash).toMatchObject({ type: 'accidentautomatic', message: { event: { type: 'CRASH', severity: 4 } } });
    expect(crash.items.find((i) => i.item === 'crashseverity')?.payload.value).toBe(4);
    await waitFor(async () => receiverLines.some((l) => /verified push [0-9a-f-]+: V1RTUALV1N0000001 accidentautomatic$/.test(l)), `the crash push\n${receiverLines.join('\n')}`, 10_000);
    expect(Date.now() - sent).toBeLessThan(5000);
    expect(receiverLines.some((l) => l.startsWith('✗'))).toBe(false);
    stopReceiver();
  });

  it('the console is on: the block prints its address and the try-out\'s token, which signs in; the start log names /console and /docs', async () => {
    const text = service.lines.join('\n');
    expect(text).toContain(`    ${origin}/console\n    ${origin}/docs\n`);
    const token = /sign in with the token generated for this try-out: (\S+)/.exec(text)![1]!;
    expect(token.length).toBeGreaterThanOrEqual(16);
    const started = service.lines.find((l) => l.includes('"service started') || l.includes('service started'))!;
    expect(started).toContain(`${origin}/console`);
    expect(started).toContain(`${origin}/docs`);
    const form = await fetch(`${origin}/console/sign-in`);
    const cookie = form.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const signIn = (t: string) =>
      fetch(`${origin}/console/sign-in`, { method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, token: t }) });
    expect((await signIn(token)).headers.get('location')).toBe('/console/fleet');
  });

  it('with the typed client: a webhook to a local receiver, a test event, a crash, the push verified with verifyWebhook, within seconds', async () => {
    const started = Date.now();
    const vars = Object.fromEntries([...exports.matchAll(/(\w+)='([^']*)'/g)].map((m) => [m[1]!, m[2]!]));
    const client: CvdClient = createClient({ baseUrl: vars.CVD_URL!, apiKey: vars.CVD_API_KEY!, subscriptionId: vars.CVD_SUBSCRIPTION_ID! });
    const receiver: Receiver = await startReceiver();
    try {
      const { signingSecret } = await client.request('put', '/push/v1/webhook', { body: { url: receiver.url } });
      const test = await client.request('post', '/push/v1/webhook/test');
      expect(test).toMatchObject({ status: 200, error: null });
      const [testPush] = await receiver.waitFor(1, 5000);
      expect(await verifyWebhook<{ test?: boolean }>(signingSecret, testPush!.headers, testPush!.body)).toMatchObject({ test: true });

      const sent = await client.request('post', '/sandbox/v1/vehicles/{vin}/events', { path: { vin: 'V1RTUALV1N0000001' }, body: { type: 'accidentautomatic', severity: 2 } });
      const [, crash] = await receiver.waitFor(2, 5000);
      const push = await verifyWebhook<VehicleDataPush>(signingSecret, crash!.headers, crash!.body);
      const entry = push.inVehicleResponse.inVehicleData[0]!;
      expect(entry.identifier.value).toBe('V1RTUALV1N0000001');
      expect(entry.response.accidentautomatic!.dataPoint).toMatchObject({ timestamp: sent.message.occurredAt });
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await receiver.close();
    }
  });
});
