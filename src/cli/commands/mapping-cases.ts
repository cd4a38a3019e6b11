import { listCaseFiles, runCase, type CaseResult } from '../../mapping-cases/cases.ts';
import { coverageMarkdown, coverageTable } from '../../mapping-cases/coverage.ts';
import type { CliCommand, CliContext } from '../command.ts';
import { knownManufacturer, loadRegistry } from '../project.ts';
import { watchFolders } from '../watch.ts';

/** Every case (of one manufacturer), printed as it goes; the exit code says whether all passed. */
async function runCases(ctx: CliContext, only: string | undefined) {
  const reg = await loadRegistry(ctx);
  if (only !== undefined) knownManufacturer(reg, only);
  const files = (await listCaseFiles(ctx.paths.mappings)).filter(([m]) => only === undefined || m === only);
  const results: CaseResult[] = [];
  for (const [m, file] of files) results.push(await runCase(reg, await ctx.catalog(), m, file, ctx.paths.mappings));
  const failed = results.filter((r) => r.problems.length > 0);
  for (const r of results) ctx.note(`${r.problems.length === 0 ? 'ok  ' : 'FAIL'} ${r.name}${r.problems.map((p) => `\n       ${p}`).join('')}`);
  ctx.note(`${results.length - failed.length} of ${results.length} cases passed`);
  ctx.exitCode = failed.length > 0 || results.length === 0 ? 1 : 0;
  return { cases: results.length, passed: results.length - failed.length, failed: failed.map((f) => ({ name: f.name, problems: f.problems })) };
}

/** Data engineers' commands: the mapping cases and what they cover (mappings/README.md). */
const commands: CliCommand[] = [
  {
    name: 'mappings test',
    summary: 'Run every mapping case (mappings/<manufacturer>/cases/*.json); exit 1 when one fails',
    options: {
      manufacturer: { type: 'string', description: 'Only this manufacturer’s cases.' },
      watch: { type: 'boolean', description: 'Run them again whenever a file under adapters/ or mappings/ is saved, until Ctrl-C.' },
    },
    async run(ctx, args) {
      const only = typeof args.values['manufacturer'] === 'string' ? args.values['manufacturer'] : undefined;
      if (args.values['watch'] !== true) return runCases(ctx, only);
      // A broken manifest or mapping while editing is reported, and the watch goes on.
      const once = () =>
        runCases(ctx, only).then(
          () => undefined,
          (err: Error) => {
            ctx.exitCode = 1;
            ctx.note(`error: ${err.message}`);
          },
        );
      await once();
      ctx.note('watching adapters/ and mappings/ (Ctrl-C to stop)');
      await watchFolders(
        [ctx.paths.adapters, ctx.paths.mappings],
        async (file) => {
          ctx.note(`\n${file} changed: running the cases again`);
          await once();
        },
        ctx.signal,
      );
      return undefined;
    },
  },
  {
    name: 'mappings coverage',
    summary: 'Show the manufacturer × catalog item table (supplied, with a case or not), from the manifests and cases as they are now',
    async run(ctx) {
      const catalog = (await ctx.catalog()).list().map((e) => e.technicalName);
      const table = await coverageTable(await loadRegistry(ctx), catalog, ctx.paths.mappings);
      // Built on demand from the folders, never kept in a file: a new manufacturer's folders are
      // all it takes, with nothing to regenerate (GET /catalog/v1/manufacturers serves the same).
      ctx.note(coverageMarkdown(table).trimEnd());
      const summary = (id: string, c: string) => table.items.filter((i) => table.cells[i]![id] === c);
      return Object.fromEntries(table.manufacturers.map((id) => [id, { covered: summary(id, 'covered').length, noCase: summary(id, 'no case'), notSupplied: summary(id, 'not supplied').length }]));
    },
  },
];

export default commands;
