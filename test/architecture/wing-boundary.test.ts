import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/paths.ts';

const ROOT = projectRoot();
const isWing = (file: string) => file.startsWith('src/virtual/') || file.startsWith('simulator/src/');

/** Every TypeScript source below the folders, relative to the root. */
function sources(...dirs: string[]): string[] {
  return dirs.flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile() && d.name.endsWith('.ts'))
      .map((d) => relative(ROOT, join(d.parentPath, d.name))),
  );
}

/** What a file imports (static, re-exported, or dynamic with a literal), resolved to files relative to the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specifiers.map((s) => relative(ROOT, resolve(ROOT, dirname(file), s)));
}

/*
 * The virtual wing is loaded only by main, dynamically and only with SIMULATOR=on
 * (src/main/wing.ts, docs/architecture.md): no other file imports it, and the production build,
 * which follows imports, cannot pull it in. The wing reaches the consent part only through its
 * public surface, src/consent/index.ts.
 */
describe('the virtual wing boundary', () => {
  const files = sources('src', 'simulator/src');

  it('no file outside the wing imports a file of it', () => {
    const into = files.filter((f) => !isWing(f)).flatMap((f) => importsOf(f).filter(isWing).map((to) => `${f} → ${to}`));
    expect(into).toEqual([]);
  });

  it('the wing imports consent only through src/consent/index.ts', () => {
    const internals = files.filter(isWing).flatMap((f) => importsOf(f).filter((to) => to.startsWith('src/consent/') && to !== 'src/consent/index.ts').map((to) => `${f} → ${to}`));
    expect(internals).toEqual([]);
    expect(files.filter(isWing).some((f) => importsOf(f).includes('src/consent/index.ts'))).toBe(true);
  });
});
