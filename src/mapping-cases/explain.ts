import type { Adapter } from '../adapters/manifest.ts';
import type { MappingBindings } from '../mapping/compile.ts';

/**
 * Authoring aid for the mapping cases and the dry run: where a failed or invalid mapping went
 * wrong, in the words of its author: the catalog item whose part of the mapping failed, the
 * line, and the raw field that held the offending value. Found after the fact, only for a
 * failure, so the pipeline pays nothing for it.
 */
export async function explainFailure(adapter: Adapter, input: unknown, bindings: MappingBindings, analysis: Outcome): Promise<string[]> {
  const mapping = adapter.mappings.get(bindings.messageType);
  if (!mapping || !analysis.failure) return [];
  // The text that ran (the playground's edit, say), not the file on disk.
  const source = mapping.source;
  const items = adapter.manifest.items;
  if (analysis.failure.code === 'MAPPING_FAILED') {
    // Evaluated again for the error's position and value, which the quarantine reason drops.
    const err = await mapping.evaluate(input, bindings).then(
      () => undefined,
      (e: unknown) => e as { position?: number; value?: unknown },
    );
    if (typeof err?.position !== 'number') return [];
    const item = itemAt(source, err.position, items);
    const where = `line ${lineOf(source, err.position)}${item ? `, in the mapping of ${item}` : ''}`;
    return [`${where}${rawFieldNote(input, err.value)}`];
  }
  const out: string[] = [];
  for (const c of analysis.candidates.filter((c) => c.errors.length > 0)) {
    const line = itemLine(source, c.item);
    for (const e of c.errors) {
      const missing = /^\/(\S*) must have required property '([^']+)'/.exec(e);
      if (missing) {
        out.push(`${c.item} (line ${line ?? '?'}) has no ${missing[2]}: the raw field it reads is absent, or a helper gave undefined (an unknown unit or time)`);
        continue;
      }
      const pointer = /^(\/\S*) /.exec(e)?.[1];
      if (pointer === undefined) continue;
      const value = valueAt(c.payload, pointer);
      out.push(`${c.item}${pointer} = ${JSON.stringify(value)} (line ${line ?? '?'})${rawFieldNote(input, value)}`);
    }
  }
  return out;
}

/** The raw text as JSON, or undefined when it is not (then there is no field to name). */
export function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** What the pipeline made of the message (an Analysis, or a dry run's result). */
interface Outcome {
  failure?: { code: string; reason: string } | null;
  candidates: { item: string; payload: Record<string, unknown>; errors: string[] }[];
}

const lineOf = (source: string, position: number): number => source.slice(0, position).split('\n').length;

/** The catalog item whose key comes last before `position`: the item being built there. */
function itemAt(source: string, position: number, items: readonly string[]): string | undefined {
  const before = source.slice(0, position);
  let best: { item: string; at: number } | undefined;
  for (const item of items) {
    const at = before.lastIndexOf(`"${item}"`);
    if (at >= 0 && (!best || at > best.at)) best = { item, at };
  }
  return best?.item;
}

function itemLine(source: string, item: string): number | undefined {
  const at = source.search(new RegExp(`"${item}"\\s*:`));
  return at < 0 ? undefined : lineOf(source, at);
}

function valueAt(payload: unknown, pointer: string): unknown {
  let v = payload;
  for (const key of pointer.split('/').slice(1)) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return v;
}

/** `; raw field signals[3].value ("Vehicle.Speed")`, naming up to three fields holding `value`. */
function rawFieldNote(input: unknown, value: unknown): string {
  if (value === undefined || value === null || typeof value === 'object') return '';
  const found = rawFields(input, value, '', []).slice(0, 3);
  return found.length === 0 ? '; no raw field holds this value (the mapping computed it)' : `; raw field ${found.join(', ')}`;
}

/** Paths of the leaves equal to `value`, each with the name its object gives itself (path, channel, name). */
function rawFields(node: unknown, value: unknown, at: string, out: string[]): string[] {
  if (out.length >= 3) return out;
  if (Array.isArray(node)) node.forEach((v, i) => rawFields(v, value, `${at}[${i}]`, out));
  else if (node !== null && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    const label = ['path', 'channel', 'name'].map((k) => o[k]).find((v) => typeof v === 'string');
    for (const [k, v] of Object.entries(o)) {
      const here = at === '' ? k : `${at}.${k}`;
      if (v === value) out.push(`${here}${label !== undefined && v !== label ? ` (${JSON.stringify(label)})` : ''}`);
      else rawFields(v, value, here, out);
    }
  }
  return out;
}
