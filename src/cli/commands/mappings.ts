import { adapterSecret } from '../../adapters/secrets.ts';
import { transportKind } from '../../transports/kinds.ts';
import { explainFailure, parsedJson } from '../../mapping-cases/explain.ts';
import { dryRun } from '../../pipeline/dry-run.ts';
import { UsageError, type CliCommand } from '../command.ts';
import { knownManufacturer, loadRegistry, rawMessageArgs } from '../project.ts';

/** Data engineers' commands: dry runs and a manufacturer's transport secret (the cases: ./mapping-cases.ts). */
const commands: CliCommand[] = [
  {
    name: 'mappings dry-run',
    summary: 'Harmonize one raw message from a file, exactly as the pipeline would, storing nothing; exit 1 when it would be quarantined',
    positionals: { synopsis: '<raw-message-file>', min: 1, max: 1 },
    options: {
      manufacturer: { type: 'string', description: 'The adapter id, e.g. borealis.' },
      type: { type: 'string', description: 'The raw message type, e.g. vehicle-status.' },
    },
    async run(ctx, args) {
      const { raw, reg, adapter, type } = await rawMessageArgs(ctx, args);
      const result = await dryRun(reg, await ctx.catalog(), adapter.manifest.id, type, raw, ctx.clock.now().toISOString());
      if (!result) throw new UsageError(`no adapter "${adapter.manifest.id}"`);
      if (result.valid) return result;
      ctx.exitCode = 1;
      const input = parsedJson(raw);
      const bindings = { receivedAt: ctx.clock.now().toISOString(), messageType: type };
      const explanation = input === undefined ? [] : await explainFailure(adapter, input, bindings, { failure: result.failure, candidates: result.items });
      return { ...result, explanation };
    },
  },
  {
    name: 'adapters secret',
    summary: "Print a manufacturer's transport secret (MQTT password, HTTP signing key, or our client secret at its polled API)",
    positionals: { synopsis: '<manufacturer>', min: 1, max: 1 },
    async run(ctx, args) {
      const adapter = knownManufacturer(await loadRegistry(ctx), args.positionals[0]!);
      const t = adapter.manifest.transport;
      const id = adapter.manifest.id;
      const secret = adapterSecret(ctx.config, adapter);
      // Each kind says what goes with its secret (a broker login, a signature header, our client at its API).
      return { manufacturer: id, transport: t.kind, ...transportKind(t).credentials(t, secret) };
    },
  },
];

export default commands;
