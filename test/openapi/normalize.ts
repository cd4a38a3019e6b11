import { createHash, createHmac } from 'node:crypto';
import type { ExamplesFile } from '../../src/http/openapi/document.ts';

/**
 * Makes recorded answers fit for the document and stable between recordings: the random ids,
 * API keys, signing secrets and confirmation codes of a run become fixed look-alikes (the same
 * value everywhere it appears, so the examples still fit together), and the test's local
 * addresses become example hosts. Everything else is the service's answer as it was.
 */
const PATTERNS: [RegExp, (n: number) => string][] = [
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (n) => uuidLike(n)],
  [/cvd_live_[A-Za-z0-9_-]{20,}/g, (n) => `cvd_live_${digest(`key-${n}`, 'base64url').slice(0, 43)}`],
  [/whsec_[A-Za-z0-9+/=]{20,}/g, (n) => `whsec_${digest(`secret-${n}`, 'base64')}`],
];

export function normalize(file: ExamplesFile, local: { origin: string; receiver: string }, extra: string[] = []): ExamplesFile {
  let text = JSON.stringify(file).replaceAll(local.receiver, 'https://hooks.example.com/vehicle-events').replaceAll(local.origin, 'https://cvd.example.com');
  const replacements = new Map<string, string>();
  for (const [pattern, make] of PATTERNS) {
    for (const m of text.matchAll(pattern)) if (!replacements.has(m[0])) replacements.set(m[0], make(replacements.size + 1));
  }
  extra.forEach((value, i) => replacements.set(value, digest(`extra-${i}`, 'base64url').slice(0, value.length)));
  for (const [from, to] of replacements) {
    text = text.replaceAll(from, to);
    // An API key's display prefix (its first characters) names the same key.
    if (from.startsWith('cvd_live_')) text = text.replaceAll(`"${from.slice(0, 13)}"`, `"${to.slice(0, 13)}"`);
  }
  const out = JSON.parse(text) as ExamplesFile;
  resign(out, [...replacements.values()].find((v) => v.startsWith('whsec_')));
  return out;
}

/** The pushes' signatures, made again with the normalized secret so that an example verifies. */
function resign(file: ExamplesFile, secret: string | undefined): void {
  if (!secret) return;
  for (const hook of Object.values(file.webhooks)) {
    const { headers } = hook;
    const mac = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
      .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${JSON.stringify(hook.body)}`)
      .digest('base64');
    headers['webhook-signature'] = `v1,${mac}`;
  }
}

function digest(seed: string, encoding: 'base64' | 'base64url' | 'hex'): string {
  return createHash('sha256').update(seed).digest(encoding);
}

function uuidLike(n: number): string {
  const h = digest(`uuid-${n}`, 'hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
