import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/paths.ts';

const DIR = join(projectRoot(), 'src', 'console');
const sources = readdirSync(DIR)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({ file: `src/console/${f}`, text: readFileSync(join(DIR, f), 'utf8') }));

/**
 * The console is one more HTTP part, not a second style: its views are Fastify plugins on the
 * console's own context (src/console/context.ts, built in src/main), never the whole services
 * object or configuration, and it keeps no error classification of its own.
 */
describe('the console on its own context', () => {
  it('no console file imports the services bag or the whole configuration', () => {
    const offenders = sources.filter((s) => /from '\.\.\/services\.ts'/.test(s.text) || /import \{[^}]*\bloadConfig\b/.test(s.text)).map((s) => s.file);
    expect(offenders).toEqual([]);
  });

  it('registers each view as a plugin: no route function taking (app, services)', () => {
    // The guard installs hooks on the console's own instance; it registers no route.
    const positional = sources.flatMap((s) => [...s.text.matchAll(/export function (\w+)\(app: FastifyInstance, /g)].map((m) => `${s.file}: ${m[1]}`));
    expect(positional).toEqual(['src/console/auth.ts: installConsoleGuard']);
  });

  it('classifies errors through the HTTP layer (one error mapping, two ways of showing it)', () => {
    const index = sources.find((s) => s.file === 'src/console/index.ts')!.text;
    expect(index).toContain('toApiError(');
    expect(sources.filter((s) => /setErrorHandler/.test(s.text)).map((s) => s.file)).toEqual(['src/console/index.ts']);
  });
});
