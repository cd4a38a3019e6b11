import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { canConnect, freePort } from '../helpers/free-port.ts';
import { ROOT } from './service-process.ts';

export interface DeployMosquitto {
  port: number;
  /** mqtt://127.0.0.1:<port>, without credentials. */
  url: string;
  /** MQTT_URL of the service: the `ingest` user's credentials in the URL, as docker-compose.yml sets it. */
  ingestUrl: string;
  passwords: { ingest: string; virtual: string };
  /** What the broker logged (log_dest stdout), e.g. "Outgoing messages are being dropped". */
  lines: string[];
  stop(): Promise<void>;
}

/**
 * A private mosquitto run with the production configuration of deploy/mosquitto (no anonymous
 * clients, the password file built as deploy/mosquitto/entrypoint.sh builds it, the real ACL
 * file, persistence), only on a free loopback port and with its files in a temp dir. So the
 * tests also prove that this configuration lets the service subscribe and the simulator publish.
 */
export async function startDeployMosquitto(opts: { settings?: Record<string, string> } = {}): Promise<DeployMosquitto> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'cvd-mosquitto-'));
  const passwords = { ingest: `ingest-${port}-pw`, virtual: `virtual-${port}-pw` };
  const passwd = join(dir, 'passwd');
  for (const [i, [user, pw]] of Object.entries(passwords).entries()) {
    const r = spawnSync('mosquitto_passwd', [...(i === 0 ? ['-c'] : []), '-b', passwd, user, pw]);
    if (r.status !== 0) throw new Error(`mosquitto_passwd failed: ${r.stderr.toString()}`);
  }
  let conf = readFileSync(join(ROOT, 'deploy', 'mosquitto', 'mosquitto.conf'), 'utf8')
    .replace(/^listener 1883$/m, `listener ${port} 127.0.0.1`)
    .replace(/^password_file .*$/m, `password_file ${passwd}`)
    .replace(/^acl_file .*$/m, `acl_file ${join(ROOT, 'deploy', 'mosquitto', 'acl')}`)
    .replace(/^persistence_location .*$/m, `persistence_location ${dir}/`)
    // stdout is block-buffered in a pipe: its log lines would come late.
    .replace(/^log_dest stdout$/m, 'log_dest stderr');
  if (!conf.includes(`listener ${port}`) || !conf.includes(passwd)) throw new Error('deploy/mosquitto/mosquitto.conf changed shape; adapt this helper');
  // A test's own values for settings of the file (smaller queue limits, say), in their place.
  for (const [key, value] of Object.entries(opts.settings ?? {})) {
    const line = new RegExp(`^${key} .*$`, 'm');
    if (!line.test(conf)) throw new Error(`deploy/mosquitto/mosquitto.conf has no ${key}; adapt the test`);
    conf = conf.replace(line, `${key} ${value}`);
  }
  const confFile = join(dir, 'mosquitto.conf');
  // Started as root, mosquitto would switch to the "mosquitto" user, who cannot read this
  // private temp dir; stay the user who runs the test (ignored when not root).
  writeFileSync(confFile, `${conf}\nuser ${userInfo().username}\n`);
  const child: ChildProcess = spawn('mosquitto', ['-c', confFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  const deadline = Date.now() + 10_000;
  while (!(await canConnect(port))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error('mosquitto did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    url: `mqtt://127.0.0.1:${port}`,
    ingestUrl: `mqtt://ingest:${passwords.ingest}@127.0.0.1:${port}`,
    passwords,
    lines,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        await new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
