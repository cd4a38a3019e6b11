import { readFile } from 'node:fs/promises';
import type { AdapterRegistry } from '../adapters/registry.ts';
import { listCaseFiles } from './cases.ts';

/** Whether a manufacturer feeds a catalog item, and whether a mapping case proves it. */
export type Coverage = 'covered' | 'no case' | 'not supplied';

export interface CoverageTable {
  manufacturers: string[];
  items: string[];
  /** cells[item][manufacturer] */
  cells: Record<string, Record<string, Coverage>>;
}

/**
 * Manufacturer × catalog item: supplied (declared in the manifest's `items`) and covered (a
 * case of that manufacturer expects the item), supplied with no case covering it, or not
 * supplied. Read from the case files; `mappings:test` checks that the cases pass.
 */
export async function coverageTable(registry: AdapterRegistry, catalogItems: string[], mappingsDir: string): Promise<CoverageTable> {
  const expected = new Map<string, Set<string>>();
  for (const [manufacturer, file] of await listCaseFiles(mappingsDir)) {
    const items = await expectedItems(file);
    const set = expected.get(manufacturer) ?? new Set<string>();
    for (const i of items) set.add(i);
    expected.set(manufacturer, set);
  }
  const manufacturers = registry.list().map((a) => a.manifest.id).sort();
  const items = [...catalogItems].sort();
  const cells: CoverageTable['cells'] = {};
  for (const item of items) {
    cells[item] = {};
    for (const id of manufacturers) {
      const supplied = registry.get(id)!.manifest.items.includes(item);
      cells[item][id] = !supplied ? 'not supplied' : expected.get(id)?.has(item) ? 'covered' : 'no case';
    }
  }
  return { manufacturers, items, cells };
}

/** The items a case file expects (none for an error case or a file that is not a case). */
async function expectedItems(file: string): Promise<string[]> {
  try {
    const c = JSON.parse(await readFile(file, 'utf8')) as { expect?: { items?: { item?: unknown }[] } };
    return (c.expect?.items ?? []).map((i) => i.item).filter((i): i is string => typeof i === 'string');
  } catch {
    return [];
  }
}

const MARK: Record<Coverage, string> = { covered: '✓', 'no case': 'no case', 'not supplied': '·' };

/** The table as Markdown, with a count per manufacturer. */
export function coverageMarkdown(t: CoverageTable): string {
  const count = (id: string, c: Coverage) => t.items.filter((i) => t.cells[i]![id] === c).length;
  const rows = [
    `| item | ${t.manufacturers.join(' | ')} |`,
    `|---|${t.manufacturers.map(() => '---').join('|')}|`,
    ...t.items.map((i) => `| \`${i}\` | ${t.manufacturers.map((m) => MARK[t.cells[i]![m]!]).join(' | ')} |`),
    `| **supplied / with a case** | ${t.manufacturers.map((m) => `${count(m, 'covered') + count(m, 'no case')} / ${count(m, 'covered')}`).join(' | ')} |`,
  ];
  return `${rows.join('\n')}\n`;
}
