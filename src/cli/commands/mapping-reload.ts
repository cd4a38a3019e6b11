import { requestReload, type ProcessOutcome } from '../../mapping-cases/reload-bus.ts';
import { createRedisClient, redisAddressOf } from '../../queues/redis.ts';
import { UsageError, type CliCommand } from '../command.ts';

const DEFAULT_WAIT_S = 30;

const line = (o: ProcessOutcome) =>
  `${o.outcome === 'refused' ? 'REFUSED' : o.outcome.padEnd(7)} ${o.process} (${o.roles.join(',')})${o.changes.map((c) => `\n        ${c.manufacturer}: ${[...c.mappings.map((m) => `${m.messageType} ${m.from ?? '-'} -> ${m.to ?? '-'}`), ...c.manifest.map((s) => `manifest ${s}`)].join('; ')}`).join('')}${o.problems.map((p) => `\n        ${p}`).join('')}`;

/** Operators' command: every running process reloads adapters/ and mappings/ from its disk. */
const commands: CliCommand[] = [
  {
    name: 'mappings reload',
    summary: 'Make every running process reload adapters/ and mappings/ (served once the changed manufacturers’ cases pass); exit 1 when one refused or did not answer',
    options: { wait: { type: 'string', description: `Seconds to wait for every process's outcome (default ${DEFAULT_WAIT_S}).` } },
    async run(ctx, args) {
      const { QUEUE_PREFIX } = ctx.config;
      const address = redisAddressOf(ctx.config);
      if (address === undefined) {
        throw new UsageError('the reload reaches the running processes through their Redis: set REDIS_URL or REDIS_CLUSTER_NODES (and QUEUE_PREFIX) as the service has them. The try-out (neither set) reloads by itself when a file changes.');
      }
      const wait = args.values['wait'] === undefined ? DEFAULT_WAIT_S : Number(args.values['wait']);
      if (!Number.isFinite(wait) || wait < 0 || wait > 600) throw new UsageError('--wait takes seconds, 0 to 600');
      // One attempt, no reconnecting: a CLI run must not hang on an unreachable Redis.
      const redis = createRedisClient(address, 'client', { lazyConnect: true, connectTimeout: 2000, retryStrategy: () => null });
      redis.on('error', () => undefined);
      try {
        await redis.connect();
        const result = await requestReload(redis, QUEUE_PREFIX, { waitMs: wait * 1000 });
        for (const o of result.outcomes) ctx.note(line(o));
        const missing = result.processes - result.outcomes.length;
        if (result.processes === 0) ctx.note(`no running process listens on this Redis with QUEUE_PREFIX=${QUEUE_PREFIX}`);
        else if (missing > 0) ctx.note(`${missing} of ${result.processes} processes did not answer within ${wait} s`);
        const refused = result.outcomes.filter((o) => o.outcome === 'refused').length;
        ctx.note(`${result.outcomes.length - refused} of ${result.processes} processes serve the files on disk${refused ? `; ${refused} refused and keep their mappings` : ''}`);
        ctx.exitCode = result.processes === 0 || missing > 0 || refused > 0 ? 1 : 0;
        return result;
      } finally {
        redis.disconnect();
      }
    },
  },
];

export default commands;
