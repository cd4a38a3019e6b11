import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CASE_NAME, caseFromMessage } from '../../mapping-cases/case-file.ts';
import { runCase } from '../../mapping-cases/cases.ts';
import { requiredString, UsageError, type CliCommand } from '../command.ts';
import { rawMessageArgs } from '../project.ts';

/** Data engineers' command: a raw message and what the mapping makes of it now, kept as a case. */
const commands: CliCommand[] = [
  {
    name: 'mappings case',
    summary: 'Save a raw message and what the mapping makes of it now (items, or its failure) as a new case, mappings/<manufacturer>/cases/<name>.json',
    positionals: { synopsis: '<raw-message-file>', min: 1, max: 1 },
    options: {
      manufacturer: { type: 'string', description: 'The adapter id, e.g. borealis.' },
      type: { type: 'string', description: 'The raw message type, e.g. vehicle-status.' },
      name: { type: 'string', description: 'The case file name, without .json: lowercase letters, digits and "-".' },
      description: { type: 'string', description: 'What the case shows (its "description").' },
    },
    async run(ctx, args) {
      const name = requiredString(args, 'name');
      if (!CASE_NAME.test(name)) throw new UsageError(`--name "${name}": lowercase letters, digits and "-", at most 80, starting with a letter or digit`);
      const { raw, reg, adapter, type } = await rawMessageArgs(ctx, args);
      const id = adapter.manifest.id;
      const target = join(ctx.paths.mappings, id, 'cases', `${name}.json`);
      if (existsSync(target)) throw new UsageError(`mappings/${id}/cases/${name}.json exists already: choose another --name`);
      const description = typeof args.values['description'] === 'string' ? args.values['description'] : undefined;
      const kase = (await caseFromMessage(reg, await ctx.catalog(), { manufacturer: id, messageType: type, ...(description ? { description } : {}) }, raw))!;
      await mkdir(join(ctx.paths.mappings, id, 'cases'), { recursive: true });
      await writeFile(target, `${JSON.stringify(kase, null, 2)}\n`, { flag: 'wx' });
      // What was written passes now, by construction; the run says so, as `mappings test` would.
      const result = await runCase(reg, await ctx.catalog(), id, target, ctx.paths.mappings);
      const expects = 'error' in kase.expect ? `the failure ${kase.expect.error}` : `${kase.expect.items.length} items`;
      ctx.note(`wrote mappings/${id}/cases/${name}.json: it expects ${expects}; ${result.problems.length ? `it FAILS: ${result.problems.join('; ')}` : 'it passes'}`);
      if (result.problems.length) ctx.exitCode = 1;
      return { file: `mappings/${id}/cases/${name}.json`, case: kase, passes: result.problems.length === 0 };
    },
  },
];

export default commands;
