import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createSqliteDeliveryRepo } from '../../src/store/sqlite/deliveries.ts';
import { createSqliteWebhookRepo } from '../../src/store/sqlite/webhooks.ts';

const T0 = '2026-03-01T10:00:00.000Z';

/*
 * An SQLite store from before a subscription could have several webhook endpoints (the webhooks
 * table keyed by subscription alone, deliveries without an endpoint) opens with its webhook as
 * the default endpoint and its deliveries in that endpoint's log; nothing is lost.
 */
describe('SQLite: webhooks and deliveries of a store from before several endpoints', () => {
  it('become the default endpoint and its delivery log', async () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE webhooks (subscription_id TEXT NOT NULL PRIMARY KEY, url TEXT NOT NULL, secrets TEXT NOT NULL, authorization_sealed TEXT,
      items TEXT NOT NULL, min_interval_seconds INTEGER NOT NULL, notices TEXT NOT NULL DEFAULT '[]', status TEXT NOT NULL, disabled_reason TEXT,
      failing_since TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`);
    db.prepare(`INSERT INTO webhooks VALUES ('sub-1', 'https://hooks.example.com/in', '[{"sealed":"v1.a","createdAt":"${T0}","expiresAt":null}]', NULL,
      '["mileage"]', 60, '["consent.revoked"]', 'ENABLED', NULL, NULL, '${T0}', '${T0}')`).run();
    db.exec(`CREATE TABLE deliveries (transaction_id TEXT NOT NULL, subscription_id TEXT NOT NULL, vin TEXT NOT NULL, item TEXT NOT NULL, kind TEXT NOT NULL,
      timestamp_ms INTEGER NOT NULL, payload TEXT NOT NULL, status TEXT NOT NULL, attempts TEXT NOT NULL, last_error TEXT, next_attempt_at TEXT,
      created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`);
    db.prepare(`INSERT INTO deliveries VALUES ('tx-1', 'sub-1', 'V1RTUALV1N0000001', 'accidentautomatic', 'event', 1, '{}', 'PENDING', '[]', NULL, NULL, '${T0}', '${T0}')`).run();

    const webhooks = createSqliteWebhookRepo(db);
    const deliveries = createSqliteDeliveryRepo(db);
    expect(await webhooks.get('sub-1')).toEqual({
      subscriptionId: 'sub-1',
      url: 'https://hooks.example.com/in',
      secrets: [{ sealed: 'v1.a', createdAt: T0, expiresAt: null }],
      authorizationSealed: null,
      items: ['mileage'],
      minIntervalSeconds: 60,
      notices: ['consent.revoked'],
      status: 'ENABLED',
      disabledReason: null,
      failingSince: null,
      createdAt: T0,
      updatedAt: T0,
    });
    await webhooks.put({ ...(await webhooks.get('sub-1'))!, endpointId: 'alerts', url: 'https://alerts.example.com/' });
    expect((await webhooks.list('sub-1')).map((w) => w.endpointId ?? 'default')).toEqual(['default', 'alerts']);
    expect((await deliveries.list({ subscriptionId: 'sub-1', endpointId: 'default', limit: 10 })).map((d) => d.transactionId)).toEqual(['tx-1']);
    expect(await deliveries.get('tx-1')).not.toHaveProperty('endpointId');
    // Opening again changes nothing.
    createSqliteWebhookRepo(db);
    createSqliteDeliveryRepo(db);
    expect(await webhooks.list('sub-1')).toHaveLength(2);
    db.close();
  });
});
