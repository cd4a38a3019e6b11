import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Reporter, TestCase } from 'vitest/node';

/**
 * Names every test that failed and then passed on a retry (TEST_RETRY), one line each in
 * `file`, so that CI prints it: a retry keeps a slow moment of a shared machine from failing a
 * run, and this list keeps the flaky test from passing unseen.
 */
export default class RetriedReporter implements Reporter {
  private readonly lines: string[] = [];

  constructor(private readonly options: { file: string }) {}

  onTestCaseResult(test: TestCase): void {
    const d = test.diagnostic();
    if (d?.flaky) this.lines.push(`${test.module.moduleId} > ${test.fullName} (passed on retry ${d.retryCount})`);
  }

  onTestRunEnd(): void {
    mkdirSync(dirname(this.options.file), { recursive: true });
    writeFileSync(this.options.file, this.lines.map((l) => `${l}\n`).join(''));
  }
}
