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

/** The manufacturers of a project: every folder of adapters/ with a manifest. */
const manufacturersOf = (paths: Paths) => readdirSync(paths.adapters).filter((d) => readdirSync(join(paths.adapters, d)).includes('manifest.json')).sort();
const manifestOf = (paths: Paths, id: string) => JSON.parse(readFileSync(join(paths.adapters, id, 'manifest.json'), 'utf8')) as { items: string[] };

/*
 * The coverage table is built from the folders each time it is asked for, never kept in a file
 * that a new manufacturer would have to regenerate; nothing here names the manufacturers of
 * the repository, so adding one cannot break it.
 */
describe('npm run mappings:coverage', () => {
  let project: ReturnType<typeof copyProject> | undefined;
  afterEach(() => project?.cleanup());

  it('prints a column per manufacturer folder and a row per catalog item, from the manifests', async () => {
    project = copyProject();
    const { paths } = project;
    const r = await cli(paths, 'mappings', 'coverage');
    expect(r.code, r.err).toBe(0);
    const ids = manufacturersOf(paths);
    const catalogSize = readdirSync(paths.catalog).filter((f) => f.endsWith('.json')).length;
    const lines = r.err.trim().split('\n');
    expect(lines[0]).toBe(`| item | ${ids.join(' | ')} |`);
    expect(lines).toHaveLength(catalogSize + 3);
    const summary = JSON.parse(r.out) as Record<string, { covered: number; noCase: string[]; notSupplied: number }>;
    expect(Object.keys(summary)).toEqual(ids);
    for (const id of ids) {
      const supplied = manifestOf(paths, id).items.length;
      expect(summary[id]!.covered + summary[id]!.noCase.length, id).toBe(supplied);
      expect(summary[id]!.notSupplied, id).toBe(catalogSize - supplied);
    }
    // The committed README keeps no table that could go stale.
    expect(readFileSync(join(paths.mappings, 'README.md'), 'utf8')).not.toMatch(/^\| item \|/m);
  });

  it('shows an item supplied without a case at once, with nothing to regenerate', async () => {
    project = copyProject();
    const { paths } = project;
    const id = manufacturersOf(paths)[0]!;
    const catalog = readdirSync(paths.catalog).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, ''));
    const manifest = manifestOf(paths, id);
    const extra = catalog.find((i) => !manifest.items.includes(i))!;
    const before = JSON.parse((await cli(paths, 'mappings', 'coverage')).out)[id];
    const row = (err: string) => err.split('\n').find((l) => l.startsWith(`| \`${extra}\` |`))!.split('|').map((c) => c.trim());
    const column = manufacturersOf(paths).indexOf(id) + 2;
    expect(row((await cli(paths, 'mappings', 'coverage')).err)[column]).toBe('·');

    manifest.items.push(extra);
    writeFileSync(join(paths.adapters, id, 'manifest.json'), JSON.stringify(manifest));

    const after = await cli(paths, 'mappings', 'coverage');
    expect(after.code).toBe(0);
    expect(row(after.err)[column]).toBe('no case');
    expect(JSON.parse(after.out)[id]).toEqual({ covered: before.covered, noCase: [...before.noCase, extra].sort(), notSupplied: before.notSupplied - 1 });
  });
});
