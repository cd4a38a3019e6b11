import type Database from 'better-sqlite3';
import type { AuditEvent, AuditRepo } from '../contract.ts';
import { fromJson, toJson } from './json-column.ts';

interface AuditRow {
  type: string;
  at: string;
  subject: string | null;
  details: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS audit_events (
  id      INTEGER PRIMARY KEY AUTOINCREMENT,
  type    TEXT NOT NULL,
  at      TEXT NOT NULL,
  subject TEXT,
  details TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_events_type_idx ON audit_events (type, at);
CREATE INDEX IF NOT EXISTS audit_events_subject_idx ON audit_events (subject, at);
`;

const toEvent = (r: AuditRow): AuditEvent => ({
  type: r.type,
  at: r.at,
  subject: r.subject,
  details: fromJson<Record<string, unknown>>(r.details, 'audit_events.details'),
});

/** SQLite engine of the AuditRepo: an append-only log, listed oldest first. */
export function createSqliteAuditRepo(db: Database.Database): AuditRepo {
  db.exec(SCHEMA);
  const insert = db.prepare<[string, string, string | null, string]>(
    'INSERT INTO audit_events (type, at, subject, details) VALUES (?, ?, ?, ?)',
  );
  // One statement per filter shape, so each can use its index.
  const cols = 'SELECT type, at, subject, details FROM audit_events';
  const all = db.prepare<[], AuditRow>(`${cols} ORDER BY at, id`);
  const byType = db.prepare<[string], AuditRow>(`${cols} WHERE type = ? ORDER BY at, id`);
  const bySubject = db.prepare<[string], AuditRow>(`${cols} WHERE subject = ? ORDER BY at, id`);
  const byBoth = db.prepare<[string, string], AuditRow>(`${cols} WHERE type = ? AND subject = ? ORDER BY at, id`);

  return {
    async record(event) {
      insert.run(event.type, event.at, event.subject ?? null, toJson(event.details ?? {}));
    },
    async list(filter) {
      const { type, subject } = filter ?? {};
      const rows =
        type !== undefined && subject !== undefined
          ? byBoth.all(type, subject)
          : type !== undefined
            ? byType.all(type)
            : subject !== undefined
              ? bySubject.all(subject)
              : all.all();
      return rows.map(toEvent);
    },
  };
}
