import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';
import { copyProject } from '../pipeline/harness.ts';

describe('npm run cli -- mappings case', () => {
  it('saves a raw message and its output as a new case that mappings:test runs and passes; never overwrites one', async () => {
    const project = copyProject();
    try {
      const io = () => {
        const o = { out: '', err: '' };
        return { o, io: { stdout: (s: string) => (o.out += s), stderr: (s: string) => (o.err += s), env: { DATA_DIR: project.paths.root, ENV_FILE: '' }, paths: project.paths } };
      };
      const raw = join(project.paths.adapters, 'kestrel', 'fixtures', 'kestrel.signals.imperial.json');
      const args = ['mappings', 'case', raw, '--manufacturer', 'kestrel', '--type', 'signals', '--name', 'imperial-again', '--description', 'Miles and Fahrenheit, again.'];
      const first = io();
      expect(await runCli(args, first.io)).toBe(0);
      expect(first.o.err).toMatch(/wrote mappings\/kestrel\/cases\/imperial-again\.json: it expects \d+ items; it passes/);
      const file = join(project.paths.mappings, 'kestrel', 'cases', 'imperial-again.json');
      const kase = JSON.parse(readFileSync(file, 'utf8')) as { description: string; messageType: string; input: unknown; expect: { items: unknown[] } };
      expect(kase).toMatchObject({ description: 'Miles and Fahrenheit, again.', messageType: 'signals', input: JSON.parse(readFileSync(raw, 'utf8')) });
      expect(kase.expect.items.length).toBeGreaterThan(0);

      const test = io();
      expect(await runCli(['mappings', 'test', '--manufacturer', 'kestrel'], test.io)).toBe(0);
      expect(test.o.err).toMatch(/ok {3}kestrel\/cases\/imperial-again\.json/);

      const again = io();
      expect(await runCli(args, again.io)).toBe(2);
      expect(again.o.err).toContain('imperial-again.json exists already');
      const bad = io();
      expect(await runCli([...args.slice(0, 7), '--name', '../../escape'], bad.io)).toBe(2);
      expect(existsSync(join(project.paths.root, 'escape.json'))).toBe(false);
    } finally {
      project.cleanup();
    }
  });
});
