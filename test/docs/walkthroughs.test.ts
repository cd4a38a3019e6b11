import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { USER_FIELDS } from '../../src/consent/user-fields.ts';
import { demoInstructions } from '../../src/main/demo-seed.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The shell lines of a markdown document's ```sh blocks. */
function shellLines(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n'));
}

/*
 * What a newcomer follows to the letter: the walk-through for adding a manufacturer names its
 * ports as the settings they are and introduces the admin token before a command uses it; the
 * try-out's step 2 says what the consent portal will ask for.
 */
describe('docs/adding-a-manufacturer.md', () => {
  const doc = read('docs/adding-a-manufacturer.md');
  const lines = shellLines(doc);

  it('writes no port as a bare number in a command: PORT and MQTT_PORT, with their defaults', () => {
    const bare = lines.filter((l) => /localhost:8080|-p 11883|:11883/.test(l.replace(/\$\{PORT:-8080\}|\$\{MQTT_PORT:-11883\}/g, '')));
    expect(bare).toEqual([]);
    expect(doc).toMatch(/`PORT`, the HTTP API's port\s+\(default 8080\)/);
    expect(doc).toMatch(/`MQTT_PORT`, the embedded MQTT broker's \(default 11883\)/);
  });

  it('exports ADMIN_TOKEN before the first command that uses it, and uses no other token', () => {
    const text = doc.replace(/\n/g, ' ');
    const exported = text.indexOf('export ADMIN_TOKEN=');
    const firstUse = Math.min(...['$ADMIN_TOKEN', 'Bearer <ADMIN_TOKEN>', 'admin-token-for-trying'].map((s) => text.indexOf(s)).filter((i) => i >= 0));
    expect(exported).toBeGreaterThan(0);
    expect(exported).toBeLessThan(firstUse);
    expect(text).not.toContain('admin-token-for-trying');
    expect(text).not.toContain('<ADMIN_TOKEN>');
  });
});

describe('the try-out’s step 2', () => {
  it('says the portal asks for a name and an e-mail address, as it does for a link with only a VIN', () => {
    expect(USER_FIELDS).toEqual(['vin', 'firstName', 'lastName', 'email']);
    const readme = read('README.md').replace(/\s+/g, ' ');
    expect(readme).toContain('the portal asks for a first name, a last name and an e-mail address (the link passes only the VIN');
    const block = demoInstructions({
      consumerId: 'c',
      apiKey: 'k',
      subscriptionId: 's',
      allowedRedirectUrls: [],
      publicUrl: 'http://localhost:8080',
      consentUrl: 'http://localhost:8080',
      vins: ['V1RTUALV1N0000001'],
      dataItems: ['mileage'],
      sandbox: true,
    });
    const link = /^ {4}(http\S+\/provision\?\S+)$/m.exec(block)?.[1];
    expect([...new URL(link!).searchParams.keys()].filter((k) => USER_FIELDS.includes(k as never))).toEqual(['vin']);
    expect(block).toMatch(/2\. Give consent for V1RTUALV1N0000001 in a browser: the portal asks for a name and an e-mail address/);
  });
});
