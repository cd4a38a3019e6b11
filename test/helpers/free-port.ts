import { createServer } from 'node:net';

export { canConnect } from '../../src/main/free-port.ts';

/**
 * Ports below Linux's ephemeral range (32768–60999) and macOS's (49152–65535). Two suites run
 * side by side on one machine (two checkouts) each take their own range: TEST_PORT_BASE and
 * TEST_PORT_SPAN (default 20000 and 12000).
 */
const BASE = Number(process.env.TEST_PORT_BASE ?? 20_000);
const BLOCKS = 12;
/** Each vitest worker draws from a block of its own. */
const BLOCK = Math.floor(Number(process.env.TEST_PORT_SPAN ?? 12_000) / BLOCKS);

const pool = Math.max(1, Number(process.env.VITEST_POOL_ID ?? 1));
let next = Math.floor(Math.random() * BLOCK);

/**
 * A TCP port for a test to hand to a process it starts (a service role, Mosquitto, a receiver).
 *
 * The service's own freePort asks the kernel for an ephemeral port and closes it: between that
 * and the child's listen, another test file running at the same time could be handed the same
 * port (CI saw `Port … is already in use`). Here each vitest worker (VITEST_POOL_ID) takes the
 * ports of its own block in turn, below the ephemeral range, so neither another worker nor a port
 * the kernel picks for any socket can take it meanwhile; each is checked free before it is given.
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < BLOCK; tries++) {
    const port = BASE + ((pool - 1) % BLOCKS) * BLOCK + (next++ % BLOCK);
    if (await listenable(port)) return port;
  }
  throw new Error(`no free port in ${BASE + ((pool - 1) % BLOCKS) * BLOCK}..+${BLOCK}`);
}

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}
