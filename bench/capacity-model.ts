/**
 * `npm run capacity:model`: the sizing table of docs/capacity.md, computed from the measured unit
 * costs below (paste fresh ones from `npm run bench:capacity` and the other benches, then run
 * this and paste its table into the doc). Every input can be overridden from the environment,
 * e.g. `DRIVING_SHARE=1 npm run capacity:model` for a fleet that all drives at once.
 */
const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** The workload: one message of 30 items every 5 s per driving vehicle. */
const MESSAGE_EVERY_S = num('MESSAGE_EVERY_S', 5);
const ITEMS_PER_MESSAGE = num('ITEMS_PER_MESSAGE', 30);
/** Share of the fleet driving in the busiest hour. */
const DRIVING_SHARE = num('DRIVING_SHARE', 0.25);
/** Delivery demand: each vehicle's latest values read once a minute, 10 VINs per request. */
const READS_PER_VEHICLE_S = num('READS_PER_VEHICLE_S', 1 / 600);
/** Push demand: one watched-item update a minute per driving vehicle, to one webhook. */
const PUSHES_PER_DRIVING_VEHICLE_S = num('PUSHES_PER_DRIVING_VEHICLE_S', 1 / 60);
/** Busiest share of a core (or of a Redis master, a store) planned for: headroom for bursts and failover. */
const UTILISATION = num('UTILISATION', 0.6);

// Measured unit costs (docs/capacity.md, "Measured"): per core of the service, per Redis master.
const HARMONIZE_MSG_PER_CORE = num('HARMONIZE_MSG_PER_CORE', 1613);
const BROKER_MSG_PER_CORE = num('BROKER_MSG_PER_CORE', 7600);
const API_REQ_PER_CORE = num('API_REQ_PER_CORE', 1680);
const PUSH_PER_CORE = num('PUSH_PER_CORE', 1843);
const REDIS_US_PER_MSG = num('REDIS_US_PER_MSG', 12.8);
const REDIS_US_PER_PUSH = num('REDIS_US_PER_PUSH', 152);
const REDIS_US_PER_READ = num('REDIS_US_PER_READ', 1.7);
const REDIS_BYTES_PER_MSG = num('REDIS_BYTES_PER_MSG', 3965);
/** SQLite on one machine, end to end (bench:ingest, README): items/s. */
const SQLITE_ITEMS_S = num('SQLITE_ITEMS_S', 57_482);
/** Store document writes per item: the data point, and the latest value's upsert. */
const WRITES_PER_ITEM = num('WRITES_PER_ITEM', 2);
/** MongoDB document writes/s one shard's primary takes (NOT measured here: no server could run). */
const MONGO_WRITES_PER_SHARD = num('MONGO_WRITES_PER_SHARD', 50_000);

const cores = (load: number, perCore: number) => Math.max(1, Math.ceil(load / (perCore * UTILISATION)));

console.log(`| vehicles | driving | messages/s | items/s | pipeline cores | broker cores | API cores (reads/s) | push cores (deliveries/s) | Redis masters (CPU, MB/s) | store |`);
console.log(`|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|`);
for (const vehicles of [10_000, 100_000, 1_000_000]) {
  const driving = vehicles * DRIVING_SHARE;
  const msgs = driving / MESSAGE_EVERY_S;
  const items = msgs * ITEMS_PER_MESSAGE;
  const reads = vehicles * READS_PER_VEHICLE_S;
  const pushes = driving * PUSHES_PER_DRIVING_VEHICLE_S;
  const redisCpu = (msgs * REDIS_US_PER_MSG + pushes * REDIS_US_PER_PUSH + reads * REDIS_US_PER_READ) / 1e6;
  const redisMBs = (msgs * REDIS_BYTES_PER_MSG) / 1e6;
  const masters = Math.max(1, Math.ceil(redisCpu / UTILISATION));
  const writes = items * WRITES_PER_ITEM;
  const store =
    items <= SQLITE_ITEMS_S * UTILISATION
      ? `SQLite (${Math.round((items / SQLITE_ITEMS_S) * 100)} % of its end-to-end rate)`
      : `MongoDB, ${Math.ceil(writes / (MONGO_WRITES_PER_SHARD * UTILISATION))} shards (${Math.round(writes).toLocaleString('en')} writes/s)`;
  console.log(
    `| ${vehicles.toLocaleString('en')} | ${Math.round(driving).toLocaleString('en')} | ${Math.round(msgs).toLocaleString('en')} | ${Math.round(items).toLocaleString('en')} | ` +
      `${cores(msgs, HARMONIZE_MSG_PER_CORE)} | ${cores(msgs, BROKER_MSG_PER_CORE)} | ${cores(reads, API_REQ_PER_CORE)} (${Math.round(reads).toLocaleString('en')}) | ` +
      `${cores(pushes, PUSH_PER_CORE)} (${Math.round(pushes).toLocaleString('en')}) | ${masters} (${(redisCpu * 100).toFixed(0)} % of a core, ${redisMBs.toFixed(0)} MB/s) | ${store} |`,
  );
}
