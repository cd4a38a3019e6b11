import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';
import { copyProject, waitFor } from '../pipeline/harness.ts';

describe('npm run mappings:test -- --watch', () => {
  let project: ReturnType<typeof copyProject> | undefined;
  afterEach(() => project?.cleanup());

  it('runs the cases again on every save of a mapping, until stopped', async () => {
    project = copyProject();
    let err = '';
    const stop = new AbortController();
    const running = runCli(['mappings', 'test', '--manufacturer', 'kestrel', '--watch'], {
      stdout: () => {},
      stderr: (s) => (err += s),
      env: { DATA_DIR: project.paths.root },
      paths: project.paths,
      signal: stop.signal,
    });
    const passes = () => (err.match(/(\d+) of \1 cases passed/g) ?? []).length;
    await waitFor(() => err.includes('watching adapters/ and mappings/'), 20_000, 'the first run');
    expect(passes()).toBe(1);

    const mapping = join(project.paths.mappings, 'kestrel', 'signals.jsonata');
    const good = readFileSync(mapping, 'utf8');
    writeFileSync(mapping, good.replace('$percentage($soc.value, $soc.unit)', '$soc.value / 10'));
    await waitFor(() => err.includes('cases passed\n') && /FAIL kestrel\/cases\/signals\.json/.test(err), 20_000, 'the run after the break');
    expect(err).toMatch(/signals\.jsonata changed: running the cases again/);
    expect(err).toMatch(/sochighlevel of KESTRELV1N0000001 at 2026-11-25T10:00:00.000Z \/value: expected 71.5, got 7.15/);

    writeFileSync(mapping, good);
    await waitFor(() => passes() === 2, 20_000, 'the run after the fix');
    stop.abort();
    expect(await running).toBe(0);
  });
});
