import type Database from 'better-sqlite3';
import { deleteInChunks } from './delete-in-chunks.ts';
import type { ConsentPatch, ConsentRecord, ConsentRepo, ConsentSelector, ConsentTransition } from '../contract.ts';
import { ACTIVE_CONSENT_STATES } from '../../domain/consent-states.ts';
import { fromJson, toJson } from './json-column.ts';
import { withDuplicateKey } from './unique-violation.ts';

interface ConsentRow {
  consent_id: string;
  consumer_id: string;
  subscription_id: string;
  vin: string | null;
  state: string;
  state_changed_at: string;
  created_at: string;
  manufacturer: string | null;
  data_items: string;
  redirect_url: string | null;
  consumer_state: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  consent_given_at: string | null;
  activated_at: string | null;
  confirmed_at: string | null;
  error_code: string | null;
  granted_items: string | null;
  history: string;
  session_hash: string;
  csrf_hash: string;
  oauth_state_hash: string | null;
  pkce_verifier_sealed: string | null;
  code_hash: string | null;
  consumer_code_challenge: string | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS consents (
  consent_id              TEXT NOT NULL PRIMARY KEY,
  consumer_id             TEXT NOT NULL,
  subscription_id         TEXT NOT NULL,
  vin                     TEXT,
  state                   TEXT NOT NULL,
  state_changed_at        TEXT NOT NULL,
  created_at              TEXT NOT NULL,
  manufacturer            TEXT,
  data_items              TEXT NOT NULL,
  redirect_url            TEXT,
  consumer_state          TEXT,
  first_name              TEXT,
  last_name               TEXT,
  email                   TEXT,
  consent_given_at        TEXT,
  activated_at            TEXT,
  confirmed_at            TEXT,
  error_code              TEXT,
  granted_items           TEXT,
  history                 TEXT NOT NULL,
  session_hash            TEXT NOT NULL,
  csrf_hash               TEXT NOT NULL,
  oauth_state_hash        TEXT,
  pkce_verifier_sealed    TEXT,
  code_hash               TEXT,
  consumer_code_challenge TEXT
);
-- A code or an OAuth state must lead to exactly one process (NULLs do not collide in SQLite).
CREATE UNIQUE INDEX IF NOT EXISTS consents_code_hash_uq ON consents (code_hash);
CREATE UNIQUE INDEX IF NOT EXISTS consents_oauth_state_hash_uq ON consents (oauth_state_hash);
CREATE INDEX IF NOT EXISTS consents_subscription_vin_idx ON consents (subscription_id, vin, state);
CREATE INDEX IF NOT EXISTS consents_vin_idx ON consents (vin);
-- The retention sweep looks processes up by state and age.
CREATE INDEX IF NOT EXISTS consents_state_changed_idx ON consents (state, state_changed_at);
`;

const UNIQUE_NAMES = {
  'consents.consent_id': 'consents.consentId',
  'consents.code_hash': 'consents.codeHash',
  'consents.oauth_state_hash': 'consents.oauthStateHash',
};

/** Patch field → column. Only these may be set by a transition. */
const PATCH_COLUMNS: Record<keyof ConsentPatch, string> = {
  vin: 'vin',
  manufacturer: 'manufacturer',
  firstName: 'first_name',
  lastName: 'last_name',
  email: 'email',
  consentGivenAt: 'consent_given_at',
  activatedAt: 'activated_at',
  confirmedAt: 'confirmed_at',
  grantedItems: 'granted_items',
  oauthStateHash: 'oauth_state_hash',
  pkceVerifierSealed: 'pkce_verifier_sealed',
  codeHash: 'code_hash',
};

const toRecord = (r: ConsentRow): ConsentRecord => ({
  consentId: r.consent_id,
  consumerId: r.consumer_id,
  subscriptionId: r.subscription_id,
  vin: r.vin,
  state: r.state as ConsentRecord['state'],
  stateChangedAt: r.state_changed_at,
  createdAt: r.created_at,
  manufacturer: r.manufacturer,
  dataItems: fromJson<string[]>(r.data_items, 'consents.data_items'),
  redirectUrl: r.redirect_url,
  consumerState: r.consumer_state,
  firstName: r.first_name,
  lastName: r.last_name,
  email: r.email,
  consentGivenAt: r.consent_given_at,
  activatedAt: r.activated_at,
  confirmedAt: r.confirmed_at,
  errorCode: r.error_code,
  grantedItems: r.granted_items === null ? null : fromJson<string[]>(r.granted_items, 'consents.granted_items'),
  history: fromJson<ConsentRecord['history']>(r.history, 'consents.history'),
  sessionHash: r.session_hash,
  csrfHash: r.csrf_hash,
  oauthStateHash: r.oauth_state_hash,
  pkceVerifierSealed: r.pkce_verifier_sealed,
  codeHash: r.code_hash,
  consumerCodeChallenge: r.consumer_code_challenge,
});

const patchValue = (key: keyof ConsentPatch, value: unknown): unknown =>
  key === 'grantedItems' ? (value === null ? null : toJson(value)) : value;

const ACTIVE_IN = ACTIVE_CONSENT_STATES.map((s) => `'${s}'`).join(', ');

/** Retention deletes in chunks so a large purge never holds the write lock for long. */
const PURGE_CHUNK = 1000;

const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

/** SQLite engine of the ConsentRepo. Creates its own tables and indexes. */
export function createSqliteConsentRepo(db: Database.Database): ConsentRepo {
  db.exec(SCHEMA);
  const insert = db.prepare(`INSERT INTO consents VALUES (
    @consent_id, @consumer_id, @subscription_id, @vin, @state, @state_changed_at, @created_at,
    @manufacturer, @data_items, @redirect_url, @consumer_state, @first_name, @last_name, @email,
    @consent_given_at, @activated_at, @confirmed_at, @error_code, @granted_items, @history,
    @session_hash, @csrf_hash, @oauth_state_hash, @pkce_verifier_sealed, @code_hash, @consumer_code_challenge)`);
  const byId = db.prepare<[string], ConsentRow>('SELECT * FROM consents WHERE consent_id = ?');
  const byState = db.prepare<[string], ConsentRow>('SELECT * FROM consents WHERE oauth_state_hash = ?');
  const byCode = db.prepare<[string], ConsentRow>('SELECT * FROM consents WHERE code_hash = ?');
  const bySub = db.prepare<[string], ConsentRow>('SELECT * FROM consents WHERE subscription_id = ? ORDER BY created_at DESC, consent_id');
  const bySubVin = db.prepare<[string, string], ConsentRow>(
    'SELECT * FROM consents WHERE subscription_id = ? AND vin = ? ORDER BY created_at DESC, consent_id',
  );
  const byVin = db.prepare<[string], ConsentRow>('SELECT * FROM consents WHERE vin = ? ORDER BY created_at DESC, consent_id');
  const active = db.prepare<[string, string], ConsentRow>(
    `SELECT * FROM consents WHERE subscription_id = ? AND vin = ? AND state IN (${ACTIVE_IN})
     ORDER BY activated_at DESC, consent_id LIMIT 1`,
  );
  const activeOne = db.prepare<[string, string], { vin: string }>(
    `SELECT vin FROM consents WHERE subscription_id = ? AND vin = ? AND state IN (${ACTIVE_IN}) LIMIT 1`,
  );
  // Many VINs as one JSON array parameter: one prepared statement for any count, no bound-parameter limit.
  const activeMany = db
    .prepare<[string, string], string>(
      `SELECT DISTINCT vin FROM consents WHERE subscription_id = ? AND state IN (${ACTIVE_IN})
       AND vin IN (SELECT value FROM json_each(?))`,
    )
    .pluck(true);
  const delByVin = db.prepare<[string]>('DELETE FROM consents WHERE vin = ?');
  const delBySubVin = db.prepare<[string, string]>('DELETE FROM consents WHERE subscription_id = ? AND vin = ?');

  // Statements differ by the patch's fields and the number of `from` states; cache each shape.
  const transitionCache = new Map<string, Database.Statement>();
  function transitionStatement(selector: ConsentSelector, change: ConsentTransition, keys: (keyof ConsentPatch)[]) {
    const byCodeHash = 'codeHash' in selector;
    const shape = `${byCodeHash}|${change.from.length}|${change.notBefore !== undefined}|${change.errorCode !== undefined}|${keys.join(',')}`;
    let stmt = transitionCache.get(shape);
    if (!stmt) {
      const sets = [
        'state = @to',
        'state_changed_at = @at',
        "history = json_insert(history, '$[#]', json(@entry))",
        ...(change.errorCode !== undefined ? ['error_code = @errorCode'] : []),
        ...keys.map((k) => `${PATCH_COLUMNS[k]} = @p_${k}`),
      ];
      const where = [
        byCodeHash ? 'code_hash = @codeHash AND consumer_id = @consumerId' : 'consent_id = @consentId',
        `state IN (${change.from.map((_, i) => `@from${i}`).join(', ')})`,
        ...(change.notBefore !== undefined
          ? ['state_changed_at >= @notBefore', '(consent_given_at IS NULL OR consent_given_at >= @notBefore)']
          : []),
      ];
      stmt = db.prepare(`UPDATE consents SET ${sets.join(', ')} WHERE ${where.join(' AND ')} RETURNING *`);
      transitionCache.set(shape, stmt);
    }
    return stmt;
  }

  return {
    async create(r) {
      withDuplicateKey(UNIQUE_NAMES, () =>
        insert.run({
          consent_id: r.consentId,
          consumer_id: r.consumerId,
          subscription_id: r.subscriptionId,
          vin: r.vin,
          state: r.state,
          state_changed_at: r.stateChangedAt,
          created_at: r.createdAt,
          manufacturer: r.manufacturer,
          data_items: toJson(r.dataItems),
          redirect_url: r.redirectUrl,
          consumer_state: r.consumerState,
          first_name: r.firstName,
          last_name: r.lastName,
          email: r.email,
          consent_given_at: r.consentGivenAt,
          activated_at: r.activatedAt,
          confirmed_at: r.confirmedAt,
          error_code: r.errorCode,
          granted_items: r.grantedItems === null ? null : toJson(r.grantedItems),
          history: toJson(r.history),
          session_hash: r.sessionHash,
          csrf_hash: r.csrfHash,
          oauth_state_hash: r.oauthStateHash,
          pkce_verifier_sealed: r.pkceVerifierSealed,
          code_hash: r.codeHash,
          consumer_code_challenge: r.consumerCodeChallenge,
        }),
      );
    },
    async get(consentId) {
      const row = byId.get(consentId);
      return row ? toRecord(row) : null;
    },
    async findByOAuthStateHash(hash) {
      const row = byState.get(hash);
      return row ? toRecord(row) : null;
    },
    async findByCodeHash(hash) {
      const row = byCode.get(hash);
      return row ? toRecord(row) : null;
    },
    async listBySubscription(subscriptionId, filter) {
      const rows = filter?.vin !== undefined ? bySubVin.all(subscriptionId, filter.vin) : bySub.all(subscriptionId);
      return rows.map(toRecord);
    },
    async listByVin(vin) {
      return byVin.all(vin).map(toRecord);
    },
    async transition(selector, change) {
      if (change.from.length === 0) return null;
      const set = change.set ?? {};
      const keys = (Object.keys(set) as (keyof ConsentPatch)[]).filter((k) => k in PATCH_COLUMNS).sort();
      const params: Record<string, unknown> = {
        to: change.to,
        at: change.at,
        entry: toJson({ state: change.to, at: change.at, ...(change.errorCode !== undefined ? { errorCode: change.errorCode } : {}) }),
        ...selector,
      };
      change.from.forEach((s, i) => (params[`from${i}`] = s));
      if (change.notBefore !== undefined) params.notBefore = change.notBefore;
      if (change.errorCode !== undefined) params.errorCode = change.errorCode;
      for (const k of keys) params[`p_${k}`] = patchValue(k, set[k] ?? null);
      const stmt = transitionStatement(selector, change, keys);
      const row = withDuplicateKey(UNIQUE_NAMES, () => stmt.get(params) as ConsentRow | undefined);
      return row ? toRecord(row) : null;
    },
    async keepNewest(subscriptionId, vin, change) {
      if (change.from.length === 0) return 0;
      const states = placeholders(change.from.length);
      // One statement: the newest is chosen and the others moved atomically.
      const stmt = db.prepare(
        `UPDATE consents SET state = ?, state_changed_at = ?, history = json_insert(history, '$[#]', json(?))
         WHERE subscription_id = ? AND vin = ? AND state IN (${states}) AND consent_id <> (
           SELECT consent_id FROM consents WHERE subscription_id = ? AND vin = ? AND state IN (${states})
           ORDER BY activated_at DESC, consent_id LIMIT 1)`,
      );
      const entry = toJson({ state: change.to, at: change.at });
      return stmt.run(change.to, change.at, entry, subscriptionId, vin, ...change.from, subscriptionId, vin, ...change.from).changes;
    },
    async findActive(subscriptionId, vin) {
      const row = active.get(subscriptionId, vin);
      return row ? toRecord(row) : null;
    },
    async activeVins(subscriptionId, vins) {
      const unique = [...new Set(vins)];
      if (unique.length === 0) return new Set();
      // One VIN (the push worker's check right before each send) takes the simplest statement.
      if (unique.length === 1) return activeOne.get(subscriptionId, unique[0]!) ? new Set(unique) : new Set();
      return new Set(activeMany.all(subscriptionId, JSON.stringify(unique)));
    },
    async listChangedBefore(states, before, limit) {
      if (states.length === 0 || limit <= 0) return [];
      const rows = db
        .prepare<unknown[], ConsentRow>(
          `SELECT * FROM consents WHERE state IN (${placeholders(states.length)}) AND state_changed_at < ?
           ORDER BY state_changed_at, consent_id LIMIT ?`,
        )
        .all(...states, before, limit);
      return rows.map(toRecord);
    },
    async deleteChangedBefore(states, before, opts = {}) {
      if (states.length === 0) return 0;
      const neverActive = opts.neverActive ? ' AND activated_at IS NULL' : '';
      const chunk = db.prepare<unknown[]>(
        `DELETE FROM consents WHERE rowid IN (
           SELECT rowid FROM consents WHERE state IN (${placeholders(states.length)}) AND state_changed_at < ?${neverActive} LIMIT ?)`,
      );
      return deleteInChunks((limit) => chunk.run(...states, before, limit).changes, PURGE_CHUNK);
    },
    async deleteByVin(vin) {
      return delByVin.run(vin).changes;
    },
    async deleteBySubscriptionAndVin(subscriptionId, vin) {
      return delBySubVin.run(subscriptionId, vin).changes;
    },
  };
}
