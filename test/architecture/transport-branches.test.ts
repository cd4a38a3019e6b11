import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/paths.ts';
import { TRANSPORT_KINDS } from '../../src/transports/kinds.ts';

const ROOT = projectRoot();
const KINDS = TRANSPORT_KINDS.map((k) => k.kind);

/**
 * Where a transport's name may be compared with: the kind's own folder (it knows itself), and
 * places that are not part of the service's handling of a kind.
 */
const ALLOWED: { path: RegExp; why: string }[] = [
  { path: new RegExp(`^src/transports/(${KINDS.join('|')})/`), why: "the transport's own folder" },
  // The scaffold offers a fixed menu of kinds to start a manufacturer from, with a sample of each;
  // a new kind works without being on it.
  { path: /^src\/cli\/scaffold\//, why: 'the scaffold menu' },
  { path: /^src\/cli\/commands\/manufacturers\.ts$/, why: 'the scaffold menu' },
  // Simulated manufacturers are the other end of a transport: they speak one kind on purpose.
  { path: /^src\/virtual\//, why: 'simulated manufacturers' },
  { path: /^simulator\//, why: 'simulated manufacturers' },
];

/** The lines of `text` that compare something with a transport kind's name (`=== 'mqtt'`, `case 'poll':`). */
export function kindBranches(text: string, kinds: readonly string[] = KINDS): string[] {
  const name = `['"\`](?:${kinds.join('|')})['"\`]`;
  const branch = new RegExp(`[!=]==?\\s*${name}|${name}\\s*[!=]==?|\\bcase\\s+${name}\\s*:`);
  return text.split('\n').filter((line) => branch.test(line));
}

function sourceFiles(dir: string): string[] {
  return (readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.includes('node_modules'))
    .map((f) => relative(ROOT, join(ROOT, dir, f)));
}

describe('transport kinds (docs/adding-a-manufacturer.md, "Adding a transport kind")', () => {
  it('are branched on by name only in their own folders: a new kind touches its folder and its registration', () => {
    const found = [...sourceFiles('src'), ...sourceFiles('simulator/src')]
      .filter((file) => !ALLOWED.some((a) => a.path.test(file)))
      .flatMap((file) => kindBranches(readFileSync(join(ROOT, file), 'utf8')).map((line) => `${file}: ${line.trim()}`));
    expect(found).toEqual([]);
  });

  it('are found when compared with, however written', () => {
    const planted = [
      "if (t.kind === 'mqtt') return 1;",
      'const polled = kind !== "poll";',
      "return 'http' === transport ? a : b;",
      '  case `poll`:',
    ];
    expect(kindBranches(planted.join('\n'), ['mqtt', 'http', 'poll'])).toEqual(planted);
    expect(kindBranches("const url = 'http://x'; if (u.protocol === 'http:') {}; const k = 'mqtt';", ['mqtt', 'http', 'poll'])).toEqual([]);
  });

  it('each have a descriptor with a schema whose kind is its own', () => {
    for (const k of TRANSPORT_KINDS) expect((k.schema as { properties: { kind: { const: string } } }).properties.kind.const).toBe(k.kind);
    expect(new Set(KINDS).size).toBe(KINDS.length);
  });
});
