// Container health check of every role: `node deploy/healthcheck.mjs [/health|/ready]`.
// An api process answers on PORT; any other process on PROBE_PORT (src/runtime/probe-server.ts).
// Exit 0 when the path answers 2xx within 4 s, 1 otherwise.
const path = process.argv[2] ?? '/health';
const roles = (process.env.ROLES ?? 'all').split(',').map((r) => r.trim());
const servesApi = roles.includes('all') || roles.includes('api');
const port = servesApi ? process.env.PORT ?? '8080' : process.env.PROBE_PORT;
if (!port || port === '0') {
  console.error('no port to probe: set PROBE_PORT for a process without the api role');
  process.exit(1);
}
fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(4000) }).then(
  (r) => process.exit(r.ok ? 0 : 1),
  () => process.exit(1),
);
