import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Catalog, CatalogEntry, PayloadValidator } from './catalog.ts';
import { createAjv, formatAjvErrors, type Ajv } from './ajv.ts';
import { entryFileSchema } from './entry-schema.ts';
import { createMemoryCatalog } from './memory-catalog.ts';

/**
 * Loads every `catalog/*.json` file (one data item a file, see catalog/README.md), checks
 * each entry and compiles its payload schema once. A broken file stops the start: the Error
 * names the file and says what is wrong with it.
 */
export async function loadCatalog(dir: string): Promise<Catalog> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  } catch (err) {
    throw new Error(`Catalog folder ${dir} cannot be read: ${(err as Error).message}`);
  }
  if (names.length === 0) throw new Error(`Catalog folder ${dir} holds no *.json data item files`);

  const ajv = createAjv();
  const checkEntry = ajv.compile(entryFileSchema);
  const items: { entry: CatalogEntry; validator: PayloadValidator }[] = [];
  for (const name of names) {
    const file = join(dir, name);
    const text = await readFile(file, 'utf8');
    items.push(parseEntryFile(file, text, ajv, checkEntry));
  }
  return createMemoryCatalog(items);
}

/** Checks one catalog file's text; exported so tools (and tests) can check a file alone. */
export function parseEntryFile(
  file: string,
  text: string,
  ajv: Ajv,
  checkEntry: ReturnType<Ajv['compile']> = ajv.compile(entryFileSchema),
): { entry: CatalogEntry; validator: PayloadValidator } {
  const fail = (why: string): never => {
    throw new Error(`Catalog file ${file} is broken: ${why}`);
  };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return fail(`not valid JSON (${(err as Error).message})`);
  }
  if (!checkEntry(raw)) fail(`entry ${formatAjvErrors(checkEntry.errors).join('; ')}`);
  const entry = raw as CatalogEntry;
  const expected = basename(file, '.json');
  if (entry.technicalName !== expected) {
    fail(`technicalName "${entry.technicalName}" must equal the file name "${expected}"`);
  }
  if (entry.event === true && entry.deliveryMethod !== 'push') fail('event: true is only allowed on push items');
  let compiled: ReturnType<Ajv['compile']>;
  try {
    compiled = ajv.compile(entry.schema);
  } catch (err) {
    return fail(`invalid payload schema (${(err as Error).message})`);
  }
  // The fast path allocates nothing: error lines are only built when the payload is rejected.
  const validator: PayloadValidator = (payload) =>
    compiled(payload) ? VALID : { valid: false, errors: formatAjvErrors(compiled.errors) };
  return { entry: deepFreeze(entry), validator };
}

const VALID = Object.freeze({ valid: true as const });

/** Entries are shared by every module; freezing them stops one caller from changing another's view. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
