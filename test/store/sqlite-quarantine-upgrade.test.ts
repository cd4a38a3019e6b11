import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createSqliteQuarantineRepo } from '../../src/store/sqlite/quarantine.ts';

/*
 * A store made before quarantine entries said whether their raw message was cut: its table gets
 * the column at start, and its entries (kept whole then) read as not cut.
 */
describe('SQLite quarantine table of an older store', () => {
  it('gains raw_truncated; its entries read rawTruncated false', async () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE quarantine (id TEXT PRIMARY KEY, manufacturer TEXT NOT NULL, message_type TEXT NOT NULL, code TEXT NOT NULL,
      reason TEXT NOT NULL, mapping_version TEXT, vin TEXT, topic TEXT, raw TEXT NOT NULL, raw_encoding TEXT NOT NULL,
      received_at TEXT NOT NULL, quarantined_at TEXT NOT NULL, last_failed_at TEXT NOT NULL, failures INTEGER NOT NULL) WITHOUT ROWID`);
    db.prepare(`INSERT INTO quarantine VALUES ('old', 'virtual', 'telemetry', 'DECODE_FAILED', 'r', NULL, NULL, NULL, 'x', 'utf8', 'T', 'T', 'T', 1)`).run();
    const repo = createSqliteQuarantineRepo(db);
    expect((await repo.get(['old']))[0]).toMatchObject({ id: 'old', rawTruncated: false });
    // Opening it again changes nothing.
    createSqliteQuarantineRepo(db);
    db.close();
  });
});
