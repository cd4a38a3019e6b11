import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';
import { copyProject } from '../pipeline/harness.ts';

describe('npm run cli -- manufacturers list', () => {
  it('shows each manufacturer with its transport, items and mapping versions', async () => {
    const project = copyProject();
    try {
      let out = '';
      let err = '';
      const code = await runCli(['manufacturers', 'list'], { stdout: (s) => (out += s), stderr: (s) => (err += s), env: { DATA_DIR: project.paths.root, ENV_FILE: '' }, paths: project.paths });
      expect(code).toBe(0);
      const list = JSON.parse(out) as { manufacturer: string; transport: string; items: string[]; mappings: Record<string, { version: string }> }[];
      expect(list.map((m) => [m.manufacturer, m.transport])).toEqual([['borealis', 'http'], ['kestrel', 'poll'], ['virtual', 'mqtt']]);
      const borealis = list[0]!;
      expect(borealis.items).toContain('crashseverity');
      expect(Object.keys(borealis.mappings)).toEqual(['incident', 'vehicle-status']);
      expect(borealis.mappings.incident!.version).toMatch(/^incident\.jsonata@[0-9a-f]{12}$/);
      // And a line per manufacturer for a person, on stderr.
      expect(err).toMatch(/^borealis +http +21 items +incident: incident\.jsonata@[0-9a-f]+, vehicle-status: vehicle-status\.jsonata@[0-9a-f]+$/m);
    } finally {
      project.cleanup();
    }
  });
});
