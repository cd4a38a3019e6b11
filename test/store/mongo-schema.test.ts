import { describe, expect, it } from 'vitest';
import type { QuarantinedMessage } from '../../src/store/contract.ts';
import { BSON_MAX_BYTES } from '../../src/store/mongo/bson-size.ts';
import { SCHEMA_VERSION } from '../../src/store/mongo/layout.ts';
import { fitQuarantine, QUARANTINE_DOC_MAX_BYTES, quarantineDocSize } from '../../src/store/mongo/quarantine-fit.ts';
import { MIGRATE_COMMAND, schemaRefusal } from '../../src/store/mongo/schema.ts';

// Pure parts of the MongoDB engine that need no server: what a process says when it meets a store
// that is not migrated, and how a quarantine entry is kept under 16 MiB.

describe('MongoDB schema version at open', () => {
  it('lets a process start only on this release’s version', () => {
    expect(schemaRefusal(SCHEMA_VERSION, 'cvd')).toBeNull();
  });

  it('stops a process on a new or older store, naming the command and the database', () => {
    for (const found of [null, SCHEMA_VERSION - 1]) {
      const message = schemaRefusal(found, 'cvd')!;
      expect(message).toContain(MIGRATE_COMMAND);
      expect(message).toContain('"cvd"');
      expect(message).toContain(`version ${SCHEMA_VERSION}`);
    }
    expect(MIGRATE_COMMAND).toBe('npm run cli -- store migrate');
  });

  it('stops a process on a store a newer release wrote, without sending it to migrate', () => {
    const message = schemaRefusal(SCHEMA_VERSION + 1, 'cvd')!;
    expect(message).toContain('newer release');
    expect(message).not.toContain(MIGRATE_COMMAND);
  });
});

describe('MongoDB quarantine entries under 16 MiB', () => {
  const entry = (raw: string, rawEncoding: 'utf8' | 'base64', reason = 'mapping failed'): QuarantinedMessage => ({
    id: 'q1', manufacturer: 'virtual', messageType: 'telemetry', code: 'SCHEMA_VIOLATION', reason, mappingVersion: '1.0.0',
    vin: 'WVWZZZ1JZXW000001', topic: null, raw, rawEncoding, rawTruncated: false, receivedAt: 'T0', quarantinedAt: 'T1', lastFailedAt: 'T1', failures: 1,
  });

  it('keeps an entry that fits whole', () => {
    const small = entry('{"a":1}', 'utf8');
    expect(fitQuarantine(small)).toBe(small);
  });

  it('cuts a 20 MiB text message so its document fits, and marks it cut', () => {
    const big = entry('é'.repeat(10 * 1024 * 1024), 'utf8');
    expect(quarantineDocSize(big)).toBeGreaterThan(BSON_MAX_BYTES);
    const kept = fitQuarantine(big);
    expect(quarantineDocSize(kept)).toBeLessThanOrEqual(QUARANTINE_DOC_MAX_BYTES);
    expect(kept.rawTruncated).toBe(true);
    expect(big.raw.startsWith(kept.raw)).toBe(true);
    // Cut at a character boundary, and not by much more than needed.
    expect(kept.raw).not.toContain('\uFFFD');
    expect(quarantineDocSize(kept)).toBeGreaterThan(QUARANTINE_DOC_MAX_BYTES - 1024);
  });

  it('cuts a 30 MiB binary message as whole base64 bytes, and a huge reason', () => {
    const bytes = Buffer.alloc(30 * 1024 * 1024, 7);
    const big = entry(bytes.toString('base64'), 'base64', 'r'.repeat(2 * 1024 * 1024));
    const kept = fitQuarantine(big);
    expect(quarantineDocSize(kept)).toBeLessThanOrEqual(QUARANTINE_DOC_MAX_BYTES);
    expect(kept.rawTruncated).toBe(true);
    expect(Buffer.byteLength(kept.reason)).toBeLessThanOrEqual(64 * 1024);
    const decoded = Buffer.from(kept.raw, 'base64');
    expect(decoded.toString('base64')).toBe(kept.raw);
    expect(bytes.subarray(0, decoded.length).equals(decoded)).toBe(true);
  });
});
