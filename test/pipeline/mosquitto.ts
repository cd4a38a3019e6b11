import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canConnect, freePort } from '../helpers/free-port.ts';

export interface PrivateMosquitto {
  url: string;
  stop(): Promise<void>;
}

/** A mosquitto of our own on a free port (from PATH), so no test shares the machine's broker. */
export async function startMosquitto(): Promise<PrivateMosquitto> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'cvd-mosquitto-'));
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(conf, `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\nmax_inflight_messages 100\n`);
  const child: ChildProcess = spawn('mosquitto', ['-c', conf], { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  while (!(await canConnect(port))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error('mosquitto did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `mqtt://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) {
        await new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
