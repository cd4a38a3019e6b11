/** Writes .env.example from the config table (src/config.ts): `npm run env:example`. */
import { writeFileSync } from 'node:fs';
import { DEFINITIONS } from '../src/config.ts';

export function renderEnvExample(): string {
  const lines = [
    '# Every setting of the service with its default. .env in the working directory is read at start (copy this file there); variables already set in the environment win.',
    '# ENV_FILE (in the environment) names another file instead; ENV_FILE= reads none.',
    '',
  ];
  for (const [name, d] of Object.entries(DEFINITIONS)) {
    lines.push(`# ${d.doc}`);
    lines.push(`${d.default === '' ? '# ' : ''}${name}=${d.default}`);
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1]?.endsWith('env-example.ts')) writeFileSync(new URL('../.env.example', import.meta.url), renderEnvExample());
