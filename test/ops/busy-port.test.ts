import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';
import { deployment, type Deployment } from './service-env.ts';
import { startService, type ServiceProcess } from './service-process.ts';

/*
 * A port the service needs is taken, as on a new user's machine running something else. It stops (exit 1) after stopping what it
 * started, with one line naming the setting to change, not Node's bare EADDRINUSE.
 */
describe('a busy port', () => {
  let d: Deployment | undefined;
  let proc: ServiceProcess | undefined;
  let blocker: Server | undefined;
  afterEach(async () => {
    await proc?.stop();
    await new Promise<void>((r) => (blocker ? blocker.close(() => r()) : r()));
    d?.cleanup();
  });

  const occupy = async (): Promise<number> => {
    const port = await freePort();
    blocker = createServer();
    await new Promise<void>((r) => blocker!.listen(port, '127.0.0.1', () => r()));
    return port;
  };

  it.each(['PORT', 'MQTT_PORT'])('%s: the message names the setting and a port to try', async (setting) => {
    const port = await occupy();
    d = deployment(inject('redisUrl'));
    proc = startService('busy', { env: d.env({ PORT: String(await freePort()), MQTT_HOST: '127.0.0.1', [setting]: String(port) }) });
    const exit = await proc.exited;
    expect(exit.code).toBe(1);
    expect(proc.lines).toContain(`Port ${port} is already in use (${setting}). Stop what listens there, or start with another port: ${setting}=${port + 1} npm start`);
  }, 60_000);
});
