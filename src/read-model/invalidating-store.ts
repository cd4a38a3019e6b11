import { ACTIVE_CONSENT_STATES } from '../domain/consent-states.ts';
import type {
  ConsentRepo,
  ConsumerRepo,
  DataPointRepo,
  Store,
  SubscriptionRepo,
  VehicleRepo,
} from '../store/contract.ts';
import type { Invalidation } from './invalidation.ts';

/**
 * What each method of a repository makes stale: `null` for reads, otherwise the invalidations
 * to publish after the call, from its arguments and (on success) its result. The tables are
 * exhaustive by type, so a method added to a repository does not compile until it is classified
 * here: a forgotten write would let the delivery read model serve stale access decisions.
 */
type Effects<R> = {
  [M in keyof R]: R[M] extends (...args: infer A) => Promise<infer T>
    ? ((args: A, result: T | undefined) => Invalidation[]) | null
    : never;
};

const keys = (): Invalidation[] => [{ kind: 'keys' }];
const all = (): Invalidation[] => [{ kind: 'all' }];
const access = (subscriptionId: string): Invalidation[] => [{ kind: 'access', subscriptionId }];

const consumerEffects: Effects<ConsumerRepo> = {
  create: keys,
  get: null,
  list: null,
  count: null,
  addApiKey: keys,
  findApiKeyByHash: null,
  listApiKeys: null,
  revokeApiKey: keys,
};

const subscriptionEffects: Effects<SubscriptionRepo> = {
  create: keys,
  get: null,
  list: null,
  listByConsumer: null,
  listContainingItem: null,
};

const vehicleEffects: Effects<VehicleRepo> = {
  upsert: ([v]) => access(v.subscriptionId),
  get: null,
  getMany: null,
  listBySubscription: null,
  pageBySubscription: null,
  pageActivated: null,
  listByVin: null,
  transition: ([subscriptionId]) => access(subscriptionId),
  deleteByVin: all,
  deleteBySubscriptionAndVin: ([subscriptionId]) => access(subscriptionId),
};

const consentEffects: Effects<ConsentRepo> = {
  create: ([record]) => access(record.subscriptionId),
  get: null,
  findByOAuthStateHash: null,
  findByCodeHash: null,
  listBySubscription: null,
  listByVin: null,
  // null: the conditional update matched nothing. undefined: the call failed, and a selector
  // by code names no subscription, so everything goes.
  transition: (_args, result) => (result === undefined ? all() : result ? access(result.subscriptionId) : []),
  keepNewest: ([subscriptionId]) => access(subscriptionId),
  findActive: null,
  activeVins: null,
  listChangedBefore: null,
  // Retention deletes ended processes only; deleting them changes no access decision (only
  // active ones grant access), so the caches stay (it runs every few minutes).
  deleteChangedBefore: ([states]) => (states.some((st) => ACTIVE_CONSENT_STATES.includes(st)) ? all() : []),
  deleteByVin: all,
  deleteBySubscriptionAndVin: ([subscriptionId]) => access(subscriptionId),
};

const dataPointEffects: Effects<DataPointRepo> = {
  // Every point's VIN, not only the new points': a retried batch whose history rows exist
  // already can still move a latest value that its failed first attempt did not (MongoDB
  // writes history and latest in two steps).
  insertMany: ([points]) => {
    const vins = [...new Set(points.map((p) => p.vin))];
    return vins.length > 0 ? [{ kind: 'data', vins }] : [];
  },
  latest: null,
  latestPayloadsJson: null,
  history: null,
  deleteByVin: ([vin]) => [{ kind: 'data', vins: [vin] }],
  // Retention deletes history only; the latest values stay (src/store/*/data-points.ts).
  deleteOlderThan: null,
  count: null,
  // Moves buckets, changes no answer.
  clusterHistory: null,
};

function wrap<R extends object>(repo: R, effects: Effects<R>, publish: (inv: Invalidation) => Promise<void>): R {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(effects) as (keyof R & string)[]) {
    const method = repo[name] as (...a: unknown[]) => Promise<unknown>;
    const effect = effects[name] as ((args: unknown[], result: unknown) => Invalidation[]) | null;
    out[name] = effect
      ? async (...args: unknown[]) => {
          let result: unknown;
          try {
            result = await method.apply(repo, args);
            return result;
          } finally {
            // After success and after failure alike: a failed write may have changed something.
            for (const inv of effect(args, result)) await publish(inv);
          }
        }
      : method.bind(repo);
  }
  return out as R;
}

/**
 * The store every role uses: writes that affect what delivery may read or answer publish their
 * invalidations (src/read-model/bus.ts) once the write has returned, so no process keeps
 * serving an access decision or a latest value that a committed write changed.
 */
export function invalidatingStore(store: Store, publish: (inv: Invalidation) => Promise<void>): Store {
  return {
    engine: store.engine,
    consumers: wrap(store.consumers, consumerEffects, publish),
    subscriptions: wrap(store.subscriptions, subscriptionEffects, publish),
    vehicles: wrap(store.vehicles, vehicleEffects, publish),
    consents: wrap(store.consents, consentEffects, publish),
    dataPoints: wrap(store.dataPoints, dataPointEffects, publish),
    quarantine: store.quarantine,
    webhooks: store.webhooks,
    deliveries: store.deliveries,
    audit: store.audit,
    reports: store.reports,
    purgeErased: () => store.purgeErased(),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
