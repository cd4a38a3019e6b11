import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/paths.ts';

const ROOT = projectRoot();

function sourcesUnder(dir: string): { file: string; text: string }[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => {
      const path = join(e.parentPath, e.name);
      return { file: relative(ROOT, path).split('\\').join('/'), text: readFileSync(path, 'utf8') };
    });
}

/** The code without its comments, which may name the bag to explain it. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/** Each place a file takes the whole services object, or a pick of it (`: Services`, `Pick<Services, ...>`, `Services['x']`). */
function takesTheBag(text: string): string[] {
  return [...code(text).matchAll(/:\s*Services\b(?!\[)|Pick<Services\b|\bServices\['/g)].map((m) => m[0]);
}

/** Where the whole services object belongs: the composition root, buildApp, and the type itself. */
const ALLOWED = /^(src\/main\/|src\/app\.ts$|src\/server\.ts$|src\/services\.ts$)/;

/**
 * Each part of the service receives a context of its own, built in src/main/contexts.ts and
 * src/main/route-contexts.ts, with its sections of the settings (src/config-sections.ts): a
 * signature says what a function touches. The whole services object stays in the composition
 * root and buildApp, which registers each route group with its part's context.
 */
describe('the services bag stays in the composition root', () => {
  const sources = [...sourcesUnder('src'), ...sourcesUnder('simulator/src')].filter((s) => !ALLOWED.test(s.file));
  const found = sources.flatMap((s) => takesTheBag(s.text).map((use) => ({ file: s.file, use })));

  it('no function of the service or of the virtual wing takes the whole services object or a pick of it', () => {
    // The wing receives its own context (WingContext, src/http/wing-contract.ts) like any part.
    expect(found.map((f) => `${f.file}: ${f.use}`)).toEqual([]);
  });

  it('is counted: a helper taking the bag, or a pick of it, is found', () => {
    expect(takesTheBag("import type { Services } from '../services.ts';\nexport function f(services: Services) {}")).toEqual([': Services']);
    expect(takesTheBag("function g(s: Pick<Services, 'store'>, c: Services['clock']) {}")).toHaveLength(2);
    expect(takesTheBag('/** Not `services: Services`: the context. */\nfunction h(ctx: Ctx) {}')).toEqual([]);
  });
});
