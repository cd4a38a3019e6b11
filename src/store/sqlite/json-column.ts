/**
 * Arrays and objects live in TEXT columns as JSON. Reading one back must not silently turn a
 * corrupt value into something plausible, so a parse failure names the column.
 */
export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

export function fromJson<T>(text: string, column: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new Error(`corrupt JSON in column ${column}`, { cause: err });
  }
}
