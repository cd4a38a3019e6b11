import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './service-process.ts';

/** The Dockerfile's stages: name, base, and their instructions, in order. */
function stages(): { name: string; from: string; lines: string[] }[] {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const out: { name: string; from: string; lines: string[] }[] = [];
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) out.push({ from: from[1]!, name: from[2] ?? `stage-${out.length}`, lines: [] });
    else out.at(-1)?.lines.push(line);
  }
  return out;
}

/** A stage's instructions with those of the stages it is built on. */
function withBases(name: string): string[] {
  const all = stages();
  const stage = all.find((s) => s.name === name)!;
  const base = all.find((s) => s.name === stage.from);
  return [...(base ? withBases(base.name) : []), ...stage.lines];
}

/*
 * No Docker daemon runs the suite, so the image is checked where it is defined: the default
 * target (the last stage) gets the production build, which test/ops/compiled-build.test.ts
 * shows holds no file of the virtual wing and starts with SIMULATOR=off; nothing else of the
 * wing is copied into it, and it says SIMULATOR=off itself.
 */
describe('the Docker image (default target)', () => {
  const all = stages();
  const image = all.at(-1)!;
  const lines = withBases(image.name);

  it('runs the compiled service with node, SIMULATOR=off', () => {
    expect(lines).toContain('CMD ["node", "dist/src/server.js"]');
    expect(lines.filter((l) => /^ENV\b.*\bSIMULATOR=/.test(l))).toEqual(['ENV SIMULATOR=off']);
  });

  it('takes dist/ from the stage of `npm run build` (tsconfig.build.json, without the wing), and copies no wing file', () => {
    const fromStages = lines.map((l) => /^COPY\s+--from=(\S+)/.exec(l)?.[1]).filter((s): s is string => s !== undefined);
    expect(fromStages).toEqual(['build']);
    const build = withBases('build');
    expect(build).toContain('RUN npm run build');
    expect(build.filter((l) => /simulator|src\/virtual|build:wing/.test(l))).toEqual([]);
    expect(lines.filter((l) => /^COPY\b.*(simulator|src\/virtual)/.test(l))).toEqual([]);
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.build).toMatch(/tsc -p tsconfig\.build\.json$/);
  });
});
