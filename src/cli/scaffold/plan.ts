/** The transports a scaffolded manufacturer can start with. */
export const TRANSPORTS = ['mqtt', 'http', 'poll'] as const;
export type ScaffoldTransport = (typeof TRANSPORTS)[number];

/** Everything the templates need, decided once (src/cli/commands/manufacturers.ts). */
export interface ScaffoldPlan {
  id: string;
  name: string;
  transport: ScaffoldTransport;
  vinPrefix: string;
  /** A VIN of the prefix, for the fixture and the case. */
  exampleVin: string;
  /** Catalog items declared in the manifest: `mileage` (the worked one) and any asked for. */
  items: string[];
  /** The one message type: a nested document for MQTT and HTTP, a signal page when polled. */
  messageType: string;
}

/** A prefix from the id: capitals and digits a VIN may hold (no I, O, Q), 3 to 10 of them. */
export function derivedVinPrefix(id: string): string {
  const letters = id.toUpperCase().replace(/[^A-HJ-NPR-Z0-9]/g, '').slice(0, 10);
  return letters.padEnd(3, 'X');
}

/** The prefix, zeros, and a final 1: 17 characters. */
export const exampleVin = (prefix: string): string => `${prefix.padEnd(16, '0')}1`;

/** "acme-cars" → "Acme Cars". */
export const displayName = (id: string): string =>
  id
    .split('-')
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');

/** "acme-cars" → "ACME_CARS", for the names of its environment variables. */
export const envSuffix = (id: string): string => id.toUpperCase().replace(/-/g, '_');
