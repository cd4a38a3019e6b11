import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';
import type { Paths } from '../../src/paths.ts';
import { copyProject } from '../pipeline/harness.ts';

async function cli(paths: Paths | undefined, ...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s), env: { DATA_DIR: join(import.meta.dirname, 'unused') }, ...(paths ? { paths } : {}) });
  return { code, out, err };
}

describe('npm run mappings:coverage', () => {
  let project: ReturnType<typeof copyProject> | undefined;
  afterEach(() => project?.cleanup());

  it('keeps the table in mappings/README.md true (run `npm run mappings:coverage` after changing a manifest or a case)', async () => {
    const r = await cli(undefined, 'mappings', 'coverage', '--check');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  });

  it('shows an item supplied without a case, and writes the table when asked', async () => {
    project = copyProject();
    const readme = () => readFileSync(join(project!.paths.mappings, 'README.md'), 'utf8');
    const row = (item: string) => readme().split('\n').find((l) => l.startsWith(`| \`${item}\` |`));
    expect(row('batterymanagementstatus')).toBe('| `batterymanagementstatus` | · | · | ✓ |');

    const file = join(project.paths.adapters, 'kestrel', 'manifest.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    manifest.items.push('batterymanagementstatus');
    writeFileSync(file, JSON.stringify(manifest));

    const stale = await cli(project.paths, 'mappings', 'coverage', '--check');
    expect(stale.code).toBe(1);
    expect(stale.err).toMatch(/coverage table is out of date; run `npm run mappings:coverage`/);
    expect(row('batterymanagementstatus')).toBe('| `batterymanagementstatus` | · | · | ✓ |');

    const written = await cli(project.paths, 'mappings', 'coverage');
    expect(written.code).toBe(0);
    const catalogSize = readdirSync(project.paths.catalog).filter((f) => f.endsWith('.json')).length;
    expect(JSON.parse(written.out).kestrel).toEqual({ covered: 14, noCase: ['batterymanagementstatus'], notSupplied: catalogSize - 15 });
    expect(row('batterymanagementstatus')).toBe('| `batterymanagementstatus` | · | no case | ✓ |');
    // Columns: borealis, kestrel, virtual; kestrel's now supplies 15 items, 14 of them with a case.
    expect(readme()).toMatch(/\| \*\*supplied \/ with a case\*\* \| (\d+) \/ \1 \| 15 \/ 14 \| (\d+) \/ \2 \|/);
    expect((await cli(project.paths, 'mappings', 'coverage', '--check')).code).toBe(0);
  });
});
