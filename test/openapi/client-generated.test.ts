import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * The client's types are generated from the committed document (docs/openapi.json, which
 * test/openapi/document.test.ts keeps equal to the served one) by openapi-typescript, the
 * client package's own dev dependency (`npm run client:install`). Committed, so the client
 * needs no generation step; this fails when they were not regenerated (`npm run client:generate`).
 */
const ROOT = new URL('../../', import.meta.url).pathname;

describe('the TypeScript client package', () => {
  it('shows a consumer’s whole journey in its README in under 40 lines, with calls the document has', () => {
    const readme = readFileSync(join(ROOT, 'clients/typescript/README.md'), 'utf8');
    const code = /```ts\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(code.trimEnd().split('\n').length).toBeLessThan(40);
    const doc = JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const calls = [...code.matchAll(/request\('(\w+)', '([^']+)'/g)].map((m) => [m[1]!, m[2]!] as const);
    expect(calls.map(([, path]) => path)).toEqual(expect.arrayContaining(['/management/v1/vehicles', '/delivery/v1/in-vehicle', '/push/v1/webhook']));
    for (const [method, path] of calls) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    expect(code).toContain('cvd.history(');
    expect(code).toContain('verifyWebhook');
  });


  it('has the generated types openapi-typescript makes of today’s document', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cvd-client-'));
    try {
      const out = join(dir, 'openapi.ts');
      const cli = join(ROOT, 'clients/typescript/node_modules/openapi-typescript/bin/cli.js');
      execFileSync(process.execPath, [cli, join(ROOT, 'docs/openapi.json'), '--output', out], { stdio: 'pipe' });
      const committed = readFileSync(join(ROOT, 'clients/typescript/src/generated/openapi.ts'), 'utf8');
      expect(committed).toBe(readFileSync(out, 'utf8'));
      expect(committed).toContain('getHistory: {');
      expect(committed).toContain('export interface webhooks');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
