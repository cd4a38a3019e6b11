import { readFile } from 'node:fs/promises';
import { loadAdapterRegistry, type AdapterRegistry } from '../../adapters/registry.ts';
import { adapterSecret } from '../../adapters/secrets.ts';
import { listCaseFiles, runCase } from '../../mapping/cases.ts';
import { dryRun } from '../../pipeline/dry-run.ts';
import type { Adapter } from '../../adapters/manifest.ts';
import { requiredString, UsageError, type CliCommand, type CliContext } from '../command.ts';
import { didYouMean } from '../did-you-mean.ts';

async function registry(ctx: CliContext): Promise<AdapterRegistry> {
  const catalog = await ctx.catalog();
  return loadAdapterRegistry(ctx.paths.adapters, new Set(catalog.list().map((e) => e.technicalName)), {
    mappingsDir: ctx.paths.mappings,
    limits: { timeoutMs: ctx.config.MAPPING_TIMEOUT_MS, maxDepth: ctx.config.MAPPING_MAX_DEPTH, maxSequence: 100_000 },
  });
}

/** The adapter of this id, or a usage error naming the ids close to it. */
function knownManufacturer(reg: AdapterRegistry, id: string): Adapter {
  const adapter = reg.get(id);
  if (adapter) return adapter;
  const ids = reg.list().map((a) => a.manifest.id);
  throw new UsageError(`no manufacturer "${id}"${didYouMean(id, ids)}; there are: ${ids.join(', ')}`);
}

/** Data engineers' commands: mapping cases, dry runs, and an HTTP adapter's signing secret. */
const commands: CliCommand[] = [
  {
    name: 'mappings test',
    summary: 'Run every mapping case (mappings/<manufacturer>/cases/*.json); exit 1 when one fails',
    options: { manufacturer: { type: 'string', description: 'Only this manufacturer’s cases.' } },
    async run(ctx, args) {
      const reg = await registry(ctx);
      const only = args.values['manufacturer'];
      if (typeof only === 'string') knownManufacturer(reg, only);
      const files = (await listCaseFiles(ctx.paths.mappings)).filter(([m]) => only === undefined || m === only);
      const results = [];
      for (const [m, file] of files) results.push(await runCase(reg, await ctx.catalog(), m, file, ctx.paths.mappings));
      const failed = results.filter((r) => r.problems.length > 0);
      for (const r of results) ctx.note(`${r.problems.length === 0 ? 'ok  ' : 'FAIL'} ${r.name}${r.problems.map((p) => `\n       ${p}`).join('')}`);
      ctx.note(`${results.length - failed.length} of ${results.length} cases passed`);
      if (failed.length > 0 || results.length === 0) ctx.exitCode = 1;
      return { cases: results.length, passed: results.length - failed.length, failed: failed.map((f) => ({ name: f.name, problems: f.problems })) };
    },
  },
  {
    name: 'mappings dry-run',
    summary: 'Harmonize one raw message from a file, exactly as the pipeline would, storing nothing; exit 1 when it would be quarantined',
    positionals: { synopsis: '<raw-message-file>', min: 1, max: 1 },
    options: {
      manufacturer: { type: 'string', description: 'The adapter id, e.g. borealis.' },
      type: { type: 'string', description: 'The raw message type, e.g. vehicle-status.' },
    },
    async run(ctx, args) {
      const file = args.positionals[0]!;
      let raw: string;
      try {
        raw = await readFile(file, 'utf8');
      } catch (err) {
        throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
      }
      const reg = await registry(ctx);
      const adapter = knownManufacturer(reg, requiredString(args, 'manufacturer'));
      const type = requiredString(args, 'type');
      const types = Object.keys(adapter.manifest.messageTypes);
      if (!types.includes(type)) throw new UsageError(`${adapter.manifest.id} has no message type "${type}"${didYouMean(type, types)}; its types: ${types.join(', ')}`);
      const result = await dryRun(reg, await ctx.catalog(), adapter.manifest.id, type, raw, ctx.clock.now().toISOString());
      if (!result) throw new UsageError(`no adapter "${adapter.manifest.id}"`);
      if (!result.valid) ctx.exitCode = 1;
      return result;
    },
  },
  {
    name: 'adapters secret',
    summary: "Print a manufacturer's transport secret (MQTT password, HTTP signing key, or our client secret at its polled API)",
    positionals: { synopsis: '<manufacturer>', min: 1, max: 1 },
    async run(ctx, args) {
      const adapter = knownManufacturer(await registry(ctx), args.positionals[0]!);
      const t = adapter.manifest.transport;
      const id = adapter.manifest.id;
      const secret = adapterSecret(ctx.config, adapter);
      if (t.kind === 'mqtt') return { manufacturer: id, transport: 'mqtt', username: t.username, password: secret };
      if (t.kind === 'http') return { manufacturer: id, transport: 'http', signatureHeader: t.signatureHeader, secret };
      // Ours at the manufacturer's API: what its simulated API (or the manufacturer) must accept.
      return { manufacturer: id, transport: 'poll', tokenEndpoint: t.tokenEndpoint, clientId: t.clientId, clientSecret: secret };
    },
  },
];

export default commands;
