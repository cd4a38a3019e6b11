import { listCaseFiles, runCase } from '../../mapping-cases/cases.ts';
import { requiredString, stringList, UsageError, type CliArgs, type CliCommand, type CliContext } from '../command.ts';
import { didYouMean, unknownNames } from '../did-you-mean.ts';
import { loadRegistry } from '../project.ts';
import { derivedVinPrefix, displayName, exampleVin, TRANSPORTS, type ScaffoldPlan, type ScaffoldTransport } from '../scaffold/plan.ts';
import { existingFolders, removeScaffold, writeScaffold } from '../scaffold/write.ts';

const ID = /^[a-z0-9][a-z0-9-]{0,39}$/;
const VIN_PREFIX = /^[A-HJ-NPR-Z0-9]{3,16}$/;

/** The plan from the arguments, or a usage error saying what to change. */
async function plan(ctx: CliContext, args: CliArgs): Promise<ScaffoldPlan> {
  const id = args.positionals[0]!;
  const values = args.values;
  const items = stringList(args, 'items');
  if (!ID.test(id)) throw new UsageError(`"${id}" is not a manufacturer id: lowercase letters, digits and "-", at most 40, starting with a letter or digit`);
  const transport = requiredString(args, 'transport');
  if (!(TRANSPORTS as readonly string[]).includes(transport)) throw new UsageError(`--transport must be mqtt, http or poll, not "${transport}"${didYouMean(transport, TRANSPORTS)}`);
  const existing = existingFolders(ctx.paths, id);
  if (existing.length > 0) throw new UsageError(`manufacturer "${id}" exists already (${existing.join(', ')})`);

  const catalogNames = (await ctx.catalog()).list().map((e) => e.technicalName);
  const unknown = unknownNames('catalog items', items ?? [], catalogNames);
  if (unknown) throw new UsageError(unknown);

  const explicit = typeof values['vin-prefix'] === 'string' ? values['vin-prefix'] : undefined;
  const vinPrefix = explicit ?? derivedVinPrefix(id);
  if (!VIN_PREFIX.test(vinPrefix)) throw new UsageError(`--vin-prefix "${vinPrefix}": 3 to 16 digits and capital letters but I, O and Q`);
  // The longest prefix wins, so a nested one would take another manufacturer's VINs.
  for (const a of (await loadRegistry(ctx)).list()) {
    const clash = a.manifest.vinPrefixes.find((p) => p.startsWith(vinPrefix) || vinPrefix.startsWith(p));
    if (clash) throw new UsageError(`VIN prefix ${vinPrefix} overlaps ${clash} of "${a.manifest.id}": choose another with --vin-prefix`);
  }
  const t = transport as ScaffoldTransport;
  const name = typeof values['name'] === 'string' ? values['name'] : displayName(id);
  // One line: a line break would start lines of its own in the README (a heading, a link, HTML).
  if (name.trim() === '' || name.length > NAME_MAX || /\p{Cc}|\p{Zl}|\p{Zp}/u.test(name)) {
    throw new UsageError(`--name: one line of text, at most ${NAME_MAX} characters, without line breaks or other control characters`);
  }
  return {
    id,
    name,
    transport: t,
    vinPrefix,
    exampleVin: exampleVin(vinPrefix),
    items: [...new Set(['mileage', ...(items ?? [])])],
    messageType: t === 'poll' ? 'signals' : 'telemetry',
  };
}

/** A display name's longest (it heads the adapter's README and the consent portal's pages). */
const NAME_MAX = 80;

/** Data engineers' start of a new manufacturer (docs/adding-a-manufacturer.md). */
const commands: CliCommand[] = [
  {
    name: 'manufacturers new',
    summary: 'Scaffold a manufacturer: adapters/<id>/ (manifest, README, fixture) and mappings/<id>/ (mapping, case) that pass mappings:test at once',
    positionals: { synopsis: '<id>', min: 1, max: 1 },
    options: {
      transport: { type: 'string', description: 'mqtt (it publishes to our broker), http (it POSTs signed batches) or poll (we poll its REST API).' },
      name: { type: 'string', description: 'Display name (default: from the id, e.g. "Acme Cars" for acme-cars).' },
      'vin-prefix': { type: 'string', description: 'The VIN prefix it owns (default: from the id, e.g. ACMECARS).' },
      items: { type: 'string', multiple: true, description: 'Further catalog items to declare besides mileage, comma-separated or repeated.' },
    },
    async run(ctx, args) {
      const p = await plan(ctx, args);
      const files = await writeScaffold(ctx.paths, p);
      // What was written must load and pass, or it is taken back: a scaffold that stops the
      // service's start would be worse than none.
      let passed: number;
      try {
        const reg = await loadRegistry(ctx);
        const cases = (await listCaseFiles(ctx.paths.mappings)).filter(([m]) => m === p.id);
        const catalog = await ctx.catalog();
        const results = await Promise.all(cases.map(([m, f]) => runCase(reg, catalog, m, f, ctx.paths.mappings)));
        passed = results.filter((r) => r.problems.length === 0).length;
        if (passed !== results.length) throw new Error(results.flatMap((r) => r.problems).join('; '));
      } catch (err) {
        await removeScaffold(ctx.paths, p.id);
        throw new Error(`the scaffold of "${p.id}" does not load, so it was removed again: ${(err as Error).message}`);
      }
      ctx.note(`created ${p.name} (${p.id}, ${p.transport}); its ${passed} case passes. Next: adapters/${p.id}/README.md, "Next steps".`);
      return { manufacturer: p.id, name: p.name, transport: p.transport, vinPrefix: p.vinPrefix, messageType: p.messageType, files };
    },
  },
  {
    name: 'manufacturers list',
    summary: 'Each manufacturer with its transport, items and mapping versions (as adapters/ and mappings/ are on disk)',
    async run(ctx) {
      const list = (await loadRegistry(ctx)).list().map((a) => ({
        manufacturer: a.manifest.id,
        name: a.manifest.name,
        transport: a.manifest.transport.kind,
        vinPrefixes: a.manifest.vinPrefixes,
        items: a.manifest.items,
        mappings: Object.fromEntries([...a.mappings].sort(([x], [y]) => x.localeCompare(y)).map(([type, m]) => [type, { version: m.version, engine: m.engine }])),
      }));
      for (const m of list) {
        ctx.note(`${m.manufacturer.padEnd(16)} ${m.transport.padEnd(5)} ${String(m.items.length).padStart(3)} items  ${Object.entries(m.mappings).map(([t, v]) => `${t}: ${v.version}`).join(', ')}`);
      }
      return list;
    },
  },
];

export default commands;
