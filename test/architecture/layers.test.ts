import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/paths.ts';

const run = promisify(execFile);
const ROOT = projectRoot();
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const KNOWN = join(ROOT, '.dependency-cruiser-known-violations.json');
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** dependency-cruiser over `dirs` of `cwd` with the project's rules: the violations it reports. */
async function violations(cwd: string, dirs: string[], ignoreKnown: boolean): Promise<Violation[]> {
  const args = [DEPCRUISE, ...dirs, '--config', CONFIG, '--output-type', 'json', ...(ignoreKnown ? ['--ignore-known', KNOWN] : [])];
  // It exits with the number of errors: the JSON on stdout is what counts.
  const out = await run(process.execPath, args, { cwd, maxBuffer: 64 * 1024 * 1024 }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  const result = JSON.parse(out.stdout) as { summary: { violations: Violation[] } };
  return result.summary.violations.filter((v) => !('ignored' in v && v.ignored));
}

const describeLine = (v: Violation) => `${v.rule.name}: ${v.from} → ${v.to}`;

describe('the layers (docs/architecture.md)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'cvd-layers-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('hold: no import cycle, no upward or sideways import, every file in a layer', async () => {
    const found = await violations(ROOT, ['src', 'simulator/src'], true);
    expect(found.map(describeLine)).toEqual([]);
  }, 60_000);

  it('accept no known exception: the list of accepted imports stays empty', () => {
    const known = JSON.parse(readFileSync(KNOWN, 'utf8')) as Violation[];
    expect(known.map(describeLine)).toEqual([]);
  });

  it('are checked: a new upward import, a cycle, a file outside every layer and a sideways import in the domain each fail', async () => {
    const files: Record<string, string> = {
      'tsconfig.json': '{"compilerOptions":{"module":"NodeNext","moduleResolution":"NodeNext","allowImportingTsExtensions":true,"noEmit":true}}',
      'src/store/records.ts': "import { route } from '../routes/route.ts';\nexport const records = route;\n",
      'src/routes/route.ts': 'export const route = 1;\n',
      'src/push/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n",
      'src/push/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
      'src/nowhere/odd.ts': "import { route } from '../routes/route.ts';\nexport const odd = route;\n",
      // Inside the domain: a sideways import between two parts of one band, one the rules allow,
      // and one from a lower band up into a higher one.
      'src/delivery/read.ts': "import { a } from '../push/a.ts';\nexport const read = a;\n",
      'src/gdpr/erase.ts': "import { a } from '../push/a.ts';\nexport const erase = a;\n",
      'src/consent/flow.ts': "import { read } from '../delivery/read.ts';\nexport const flow = read;\n",
      // The domain writing an HTTP answer itself.
      'node_modules/fastify/package.json': '{"name":"fastify","main":"fastify.js","types":"fastify.d.ts"}',
      'node_modules/fastify/fastify.js': 'module.exports = {};\n',
      'node_modules/fastify/fastify.d.ts': 'export interface FastifyReply { code(n: number): this }\n',
      'src/rate-limit/reply.ts': "import type { FastifyReply } from 'fastify';\nexport type Reply = FastifyReply;\n",
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), text);
    }
    const found = (await violations(scratch, ['src'], false)).map(describeLine);
    expect(found).toContain('no-upward-from-store: src/store/records.ts → src/routes/route.ts');
    expect(found.some((l) => l.startsWith('no-circular: src/push/'))).toBe(true);
    expect(found).toContain('every-file-in-a-layer: src/nowhere/odd.ts → src/routes/route.ts');
    expect(found).toContain('no-sideways-from-delivery: src/delivery/read.ts → src/push/a.ts');
    expect(found.filter((l) => l.includes('src/gdpr/erase.ts'))).toEqual([]);
    expect(found).toContain('no-upward-from-domain-pipeline-consent-and-management: src/consent/flow.ts → src/delivery/read.ts');
    expect(found.some((l) => l.startsWith('no-http-framework-below-http: src/rate-limit/reply.ts → node_modules/fastify/'))).toBe(true);
  }, 60_000);
});
