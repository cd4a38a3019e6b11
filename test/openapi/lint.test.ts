import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = fileURLToPath(new URL('../../node_modules/@redocly/cli/bin/cli.js', import.meta.url));

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

/*
 * docs/openapi.json passes an outside linter: Redocly CLI with its recommended ruleset
 * (redocly.yaml) finds no error. Offline: the CLI is a dev dependency, its telemetry and
 * update check are off, and it reads only the committed file.
 */
describe('the OpenAPI document under Redocly’s recommended rules', () => {
  it('has no error', async () => {
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' };
    // The CLI exits 1 when it finds an error; its JSON report is on stdout either way.
    const { stdout } = await run(process.execPath, [CLI, 'lint', 'docs/openapi.json', '--format=json'], { cwd: ROOT, env, maxBuffer: 32 * 1024 * 1024 }).catch(
      (err: { stdout?: string; stderr?: string }) => {
        if (!err.stdout) throw new Error(`redocly lint failed without a report: ${err.stderr ?? String(err)}`);
        return { stdout: err.stdout };
      },
    );
    const report = JSON.parse(stdout) as { totals: { errors: number }; problems: LintProblem[] };
    const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 60_000);
});
