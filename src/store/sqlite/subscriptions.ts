import type Database from 'better-sqlite3';
import type { LegalBasis, Subscription, SubscriptionRepo } from '../contract.ts';
import { fromJson, toJson } from './json-column.ts';
import { withDuplicateKey } from './unique-violation.ts';

interface SubscriptionRow {
  subscription_id: string;
  consumer_id: string;
  data_items: string;
  allowed_redirect_urls: string;
  legal_basis: string;
  created_at: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS subscriptions (
  subscription_id       TEXT NOT NULL PRIMARY KEY,
  consumer_id           TEXT NOT NULL,
  data_items            TEXT NOT NULL,
  allowed_redirect_urls TEXT NOT NULL,
  legal_basis           TEXT NOT NULL,
  created_at            TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS subscriptions_consumer_idx ON subscriptions (consumer_id, created_at);
-- One row per (item, subscription): push fan-out asks "who wants this item" for every data
-- point, so it is an index lookup rather than a scan over every subscription's JSON.
CREATE TABLE IF NOT EXISTS subscription_items (
  item            TEXT NOT NULL,
  subscription_id TEXT NOT NULL,
  PRIMARY KEY (item, subscription_id)
) WITHOUT ROWID;
`;

const toSubscription = (r: SubscriptionRow): Subscription => ({
  subscriptionId: r.subscription_id,
  consumerId: r.consumer_id,
  dataItems: fromJson<string[]>(r.data_items, 'subscriptions.data_items'),
  allowedRedirectUrls: fromJson<string[]>(r.allowed_redirect_urls, 'subscriptions.allowed_redirect_urls'),
  legalBasis: r.legal_basis as LegalBasis,
  createdAt: r.created_at,
});

/** SQLite engine of the SubscriptionRepo. Creates its own tables and indexes. */
export function createSqliteSubscriptionRepo(db: Database.Database): SubscriptionRepo {
  db.exec(SCHEMA);
  const insert = db.prepare(
    `INSERT INTO subscriptions (subscription_id, consumer_id, data_items, allowed_redirect_urls, legal_basis, created_at)
     VALUES (@subscriptionId, @consumerId, @dataItems, @allowedRedirectUrls, @legalBasis, @createdAt)`,
  );
  const insertItem = db.prepare<[string, string]>(
    'INSERT OR IGNORE INTO subscription_items (item, subscription_id) VALUES (?, ?)',
  );
  const getOne = db.prepare<[string], SubscriptionRow>('SELECT * FROM subscriptions WHERE subscription_id = ?');
  const listAll = db.prepare<[], SubscriptionRow>('SELECT * FROM subscriptions ORDER BY created_at, subscription_id');
  const listOfConsumer = db.prepare<[string], SubscriptionRow>(
    'SELECT * FROM subscriptions WHERE consumer_id = ? ORDER BY created_at, subscription_id',
  );
  const listWithItem = db.prepare<[string], SubscriptionRow>(
    `SELECT s.* FROM subscription_items i JOIN subscriptions s ON s.subscription_id = i.subscription_id
     WHERE i.item = ? ORDER BY s.created_at, s.subscription_id`,
  );
  const createTx = db.transaction((s: Subscription) => {
    insert.run({
      subscriptionId: s.subscriptionId,
      consumerId: s.consumerId,
      dataItems: toJson(s.dataItems),
      allowedRedirectUrls: toJson(s.allowedRedirectUrls),
      legalBasis: s.legalBasis,
      createdAt: s.createdAt,
    });
    for (const item of s.dataItems) insertItem.run(item, s.subscriptionId);
  });

  return {
    async create(subscription) {
      withDuplicateKey({ 'subscriptions.subscription_id': 'subscriptions.subscriptionId' }, () =>
        createTx.immediate(subscription),
      );
    },
    async get(subscriptionId) {
      const row = getOne.get(subscriptionId);
      return row ? toSubscription(row) : null;
    },
    async list() {
      return listAll.all().map(toSubscription);
    },
    async listByConsumer(consumerId) {
      return listOfConsumer.all(consumerId).map(toSubscription);
    },
    async listContainingItem(item) {
      return listWithItem.all(item).map(toSubscription);
    },
  };
}
