/**
 * Writes .env.example from the config table (src/config.ts), then the virtual wing's own
 * settings (simulator/src/settings.ts, read only with SIMULATOR=on): `npm run env:example`.
 */
import { writeFileSync } from 'node:fs';
import { DEFINITIONS } from '../src/config.ts';
import { SIM_DEFINITIONS } from '../simulator/src/settings.ts';

export function renderEnvExample(): string {
  const lines = [
    '# Every setting of the service with its default. .env in the working directory is read at start (copy this file there); variables already set in the environment win.',
    '# ENV_FILE (in the environment) names another file instead; ENV_FILE= reads none.',
    '',
  ];
  const table = (definitions: Record<string, { default: string; doc: string }>) => {
    for (const [name, d] of Object.entries(definitions)) {
      lines.push(`# ${d.doc}`);
      lines.push(`${d.default === '' ? '# ' : ''}${name}=${d.default}`);
    }
  };
  table(DEFINITIONS);
  lines.push('', '# --- The virtual wing\'s own settings: read by the wing, only where it is loaded (SIMULATOR=on).');
  table(SIM_DEFINITIONS);
  return `${lines.join('\n')}\n`;
}

if (process.argv[1]?.endsWith('env-example.ts')) writeFileSync(new URL('../.env.example', import.meta.url), renderEnvExample());
