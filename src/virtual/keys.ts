import { family, globLiteral, type KeyFamily } from '../queues/keys.ts';

/**
 * The Redis keys of the virtual wing, declared as the keyspace registry (src/queues/keys.ts)
 * wants them: the wing registers them when it is loaded (./wing.ts), so a process with the wing
 * erases the VIN from them (the simulated authorization servers' codes, the simulated polled
 * API's request log) and the keyspace checks know them. A process without the wing has no use
 * for them; docs/architecture.md says what an erasure run there leaves to expire.
 */

export const OEM_CODE = {
  ...family({
    name: 'virtual.oem-code',
    owner: 'src/virtual/oem/codes.ts',
    tag: 'none: one key per command',
    erasure: { by: 'vin', in: 'sealed-value', pattern: (prefix) => `${globLiteral(prefix)}:oem:*:code:*`, vins: (code) => [code.vin] },
    rest: () => 'oem:[^:]+:code:[^:]+',
  }),
  key: (prefix: string, realm: string, codeHash: string) => `${prefix}:oem:${realm}:code:${codeHash}`,
};

export const OEM_FAULT = {
  ...family({
    name: 'virtual.oem-fault',
    owner: 'src/virtual/oem/fault.ts',
    tag: 'none: one key',
    erasure: { by: 'none', reason: 'a simulated manufacturer\'s fault mode' },
    rest: () => 'oem:[^:]+:fault',
  }),
  key: (prefix: string, realm: string) => `${prefix}:oem:${realm}:fault`,
};

export const KESTREL_API_FAULTS = {
  ...family({
    name: 'virtual.api-faults',
    owner: 'src/virtual/kestrel/api-faults.ts',
    tag: 'none: one key per command',
    erasure: { by: 'none', reason: 'a simulated API\'s fault counts' },
    rest: () => 'oem:[^:]+:api-faults',
  }),
  key: (prefix: string, id: string) => `${prefix}:oem:${id}:api-faults`,
};

export const KESTREL_API_RATE = {
  ...family({
    name: 'virtual.api-rate',
    owner: 'src/virtual/kestrel/routes.ts',
    tag: 'none: one key per transaction',
    erasure: { by: 'none', reason: 'a simulated API\'s requests per second' },
    rest: () => 'oem:[^:]+:api-rate:\\d+',
  }),
  key: (prefix: string, id: string, second: number) => `${prefix}:oem:${id}:api-rate:${second}`,
};

export const KESTREL_REQUEST_LOG = {
  ...family({
    name: 'virtual.api-request-log',
    owner: 'src/virtual/kestrel/request-log.ts',
    tag: 'none: one key per transaction',
    erasure: { by: 'vin', in: 'list-entries', pattern: (prefix) => `${globLiteral(prefix)}:oem:*:api-log`, vins: (entry) => [entry.vin] },
    rest: () => 'oem:[^:]+:api-log',
  }),
  key: (prefix: string, id: string) => `${prefix}:oem:${id}:api-log`,
};

/** Every family of the wing, as it registers them. */
export const WING_KEY_FAMILIES: readonly KeyFamily[] = [OEM_CODE, OEM_FAULT, KESTREL_API_FAULTS, KESTREL_API_RATE, KESTREL_REQUEST_LOG];
