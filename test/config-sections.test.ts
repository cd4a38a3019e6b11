import { describe, expect, it } from 'vitest';
import { SECTIONS, settings } from '../src/config-sections.ts';
import { DEFINITIONS, loadConfig } from '../src/config.ts';

describe('the settings by section', () => {
  const config = loadConfig({});
  const sectioned = Object.values(SECTIONS).flat() as string[];

  it('puts every setting but the simulator\'s in exactly one section', () => {
    const simulator = (key: string) => key === 'SIMULATOR' || key.startsWith('SIM_') || key === 'VIRTUAL_ACTIVATION_DELAY_MS';
    const missing = Object.keys(config).filter((key) => !simulator(key) && !sectioned.includes(key));
    expect(missing).toEqual([]);
    expect(sectioned.filter((key, i) => sectioned.indexOf(key) !== i)).toEqual([]);
    expect(sectioned.filter((key) => !(key in config) && !(key in DEFINITIONS))).toEqual([]);
  });

  it('copies only the sections asked for', () => {
    const slice = settings(config, 'push', 'queues');
    expect(Object.keys(slice).sort()).toEqual([...SECTIONS.push, ...SECTIONS.queues].sort());
    expect(slice.PUSH_TIMEOUT_MS).toBe(config.PUSH_TIMEOUT_MS);
    expect('ADMIN_TOKEN' in slice).toBe(false);
  });
});
