import { authenticateApiKey, MAX_PRESENTED_KEY_LENGTH } from '../auth/api-keys.ts';
import type { Clock } from '../clock.ts';
import { sha256Hex } from '../crypto.ts';
import type { ApiKeyRecord, Consumer, Store, Subscription, VehicleActivation } from '../store/contract.ts';
import type { InvalidationTarget } from './bus.ts';
import { ReadCache } from './cache.ts';
import type { Invalidation, ReceivedInvalidation } from './invalidation.ts';

/** The latest values of one VIN as delivery uses them. */
export interface LatestOfVin {
  /** Payload JSON text by item, for the items that have data. */
  payloads: Map<string, string>;
  /**
   * Answer fragments already built from these payloads and encoded, by the caller's own keys
   * (manufacturer, then the shape of the request): dropped with the payloads when the VIN's
   * data changes.
   */
  fragments: Map<string, Map<string, Buffer>>;
}

export interface ReadModel extends InvalidationTarget {
  /** As authenticateApiKey (src/auth/api-keys.ts). */
  authenticate(presented: string): Promise<{ consumer: Consumer; key: ApiKeyRecord } | null>;
  subscription(subscriptionId: string): Promise<Subscription | null>;
  /** The subscription's activation rows of these VINs (as VehicleRepo.getMany). */
  vehicles(subscriptionId: string, vins: readonly string[]): Promise<Map<string, VehicleActivation>>;
  /** As ConsentRepo.activeVins. */
  activeVins(subscriptionId: string, vins: readonly string[]): Promise<Set<string>>;
  /** The latest values of these VINs (at least the given items; a VIN without data is absent). */
  latest(vins: readonly string[], items: readonly string[]): Promise<Map<string, LatestOfVin>>;
  /** Keeps an answer fragment built from a VIN's values, within the fragments' memory budget. */
  rememberFragment(record: LatestOfVin, manufacturer: string, shape: string, fragment: Buffer): void;
}

/** Entries kept at most, per cache (oldest dropped first). */
const MAX_KEYS = 10_000;
const MAX_SUBSCRIPTIONS = 10_000;
const MAX_ACCESS = 100_000;
const MAX_LATEST_VINS = 5_000;
/** Distinct request shapes whose fragments are kept per VIN and manufacturer. */
const MAX_FRAGMENTS_PER_VIN = 4;
/**
 * Bytes of fragments kept before the latest-values cache is emptied and starts over (an entry
 * count alone would let large answers in many shapes take gigabytes).
 */
const FRAGMENT_BUDGET_BYTES = 32 * 1024 * 1024;

/**
 * The delivery hot path's reads, cached in this process: an API key's owner, a subscription,
 * a VIN's activation and consent in a subscription, and a VIN's latest values.
 *
 * Why: delivery (10 VINs × 20 items) read five things from the store per request; served from
 * memory the API answers several times more requests on the same CPU (bench/delivery.ts).
 *
 * Why it stays correct: every store write that changes one of these publishes an invalidation
 * (src/read-model/invalidating-store.ts) that drops the entry here at once and in every other
 * process within a Redis pub/sub hop; the cache is used only while that channel is live
 * (src/read-model/bus.ts); a fill that raced with an invalidation is not kept
 * (src/read-model/cache.ts); and no entry is older than `maxAgeMs`, which bounds staleness for a
 * write that could not publish (a CLI run without Redis, a lost Redis connection).
 * Only found keys are cached, so garbage credentials cannot fill memory; every cache is bounded
 * (entries, and the answer fragments' bytes).
 */
export function createReadModel(opts: {
  store: Store;
  clock: Clock;
  maxAgeMs: number;
  pullItems: readonly string[];
  pseudonym: (vin: string) => string;
  /**
   * An erasure of a VIN, named by its pseudonym, has ended (VIN-wide, or in one subscription):
   * the process forgets what it holds of the VIN beyond these caches (src/services.ts).
   */
  erased: (pseudonym: string, subscriptionId?: string) => void;
  /**
   * The invalidation channel was lost or (re)established, so messages may have been missed, an
   * erasure's too: the process forgets every VIN it holds beyond these caches.
   */
  forgetAll: () => void;
  isLive: () => boolean;
}): ReadModel {
  const { store, clock, maxAgeMs, pseudonym, isLive } = opts;
  const age = Math.max(1, maxAgeMs);
  const keys = new ReadCache<{ consumer: Consumer; key: ApiKeyRecord }>(MAX_KEYS, age);
  // Unknown ids are cached too (as null), so a subscription of another consumer and one that
  // does not exist take the same path (src/http/consumer-auth.ts).
  const subscriptions = new ReadCache<Subscription | null>(MAX_SUBSCRIPTIONS, age);
  const activations = new ReadCache<VehicleActivation | null>(MAX_ACCESS, age);
  const consents = new ReadCache<boolean>(MAX_ACCESS, age);
  // By pseudonym: data invalidations name VINs by pseudonym (src/read-model/invalidation.ts).
  const latest = new ReadCache<LatestOfVin>(MAX_LATEST_VINS, age);
  const on = () => maxAgeMs > 0 && isLive();
  let fragmentBytes = 0;
  const now = () => clock.now().getTime();
  // Scopes: subscription for access answers; none ('') for keys, subscriptions and data.
  const NONE = '';

  /**
   * Each VIN's cached answer in this subscription, reading the missing ones from the store in
   * one call (`load` returns the answer of each VIN it was given, absent ones included).
   */
  async function perVin<V>(
    cache: ReadCache<V>,
    subscriptionId: string,
    vins: readonly string[],
    load: (missing: string[]) => Promise<(vin: string) => V>,
  ): Promise<Map<string, V>> {
    const t = now();
    const out = new Map<string, V>();
    const missing: string[] = [];
    for (const vin of vins) {
      const hit = cache.get(subscriptionId, vin, t);
      if (hit === undefined) missing.push(vin);
      else out.set(vin, hit);
    }
    if (missing.length === 0) return out;
    const mark = cache.mark();
    const answerOf = await load(missing);
    for (const vin of missing) {
      const answer = answerOf(vin);
      cache.set(subscriptionId, vin, answer, mark, t);
      out.set(vin, answer);
    }
    return out;
  }

  function dropData(pseudonyms: readonly string[]): void {
    for (const p of pseudonyms) latest.delete(NONE, p);
  }

  /** An erasure ended: VIN-wide, every cache; in one subscription, its access answers. */
  function erased(vehicle: string, subscriptionId: string | undefined): void {
    if (subscriptionId === undefined) clearAll();
    else {
      activations.deleteScope(subscriptionId);
      consents.deleteScope(subscriptionId);
    }
    opts.erased(vehicle, subscriptionId);
  }

  function clearAll(): void {
    keys.clear();
    subscriptions.clear();
    activations.clear();
    consents.clear();
    latest.clear();
  }

  return {
    async authenticate(presented) {
      if (!on() || presented.length === 0 || presented.length > MAX_PRESENTED_KEY_LENGTH) {
        return authenticateApiKey(store, presented);
      }
      const hash = sha256Hex(presented);
      const t = now();
      const hit = keys.get(NONE, hash, t);
      if (hit) return hit;
      const mark = keys.mark();
      const found = await authenticateApiKey(store, presented);
      if (found) keys.set(NONE, hash, found, mark, t);
      return found;
    },

    async subscription(subscriptionId) {
      if (!on()) return store.subscriptions.get(subscriptionId);
      const t = now();
      const hit = subscriptions.get(NONE, subscriptionId, t);
      if (hit !== undefined) return hit;
      const mark = subscriptions.mark();
      const found = await store.subscriptions.get(subscriptionId);
      subscriptions.set(NONE, subscriptionId, found, mark, t);
      return found;
    },

    async vehicles(subscriptionId, vins) {
      const out = new Map<string, VehicleActivation>();
      if (!on()) {
        for (const v of await store.vehicles.getMany(subscriptionId, vins)) out.set(v.vin, v);
        return out;
      }
      const rows = await perVin(activations, subscriptionId, vins, async (missing) => {
        const found = new Map((await store.vehicles.getMany(subscriptionId, missing)).map((v) => [v.vin, v]));
        return (vin) => found.get(vin) ?? null;
      });
      for (const [vin, row] of rows) if (row) out.set(vin, row);
      return out;
    },

    async activeVins(subscriptionId, vins) {
      if (!on()) return store.consents.activeVins(subscriptionId, [...vins]);
      const active = await perVin(consents, subscriptionId, vins, async (missing) => {
        const found = await store.consents.activeVins(subscriptionId, missing);
        return (vin) => found.has(vin);
      });
      return new Set([...active].filter(([, yes]) => yes).map(([vin]) => vin));
    },

    async latest(vins, items) {
      const out = new Map<string, LatestOfVin>();
      const cached = on();
      const t = now();
      const missing: string[] = [];
      for (const vin of vins) {
        const hit = cached ? latest.get(NONE, pseudonym(vin), t) : undefined;
        if (hit === undefined) missing.push(vin);
        else out.set(vin, hit);
      }
      if (missing.length === 0) return out;
      const mark = latest.mark();
      // A cached VIN holds every pull item, so any later request shape finds its items.
      const rows = await store.dataPoints.latestPayloadsJson(missing, cached ? [...opts.pullItems] : [...items]);
      for (const vin of missing) out.set(vin, { payloads: new Map(), fragments: new Map() });
      for (const r of rows) out.get(r.vin)?.payloads.set(r.item, r.payloadJson);
      if (cached) for (const vin of missing) latest.set(NONE, pseudonym(vin), out.get(vin)!, mark, t);
      return out;
    },

    apply(inv: Invalidation) {
      switch (inv.kind) {
        case 'keys':
          keys.clear();
          subscriptions.clear();
          return;
        case 'access':
          activations.deleteScope(inv.subscriptionId);
          consents.deleteScope(inv.subscriptionId);
          return;
        case 'data':
          dropData(inv.vins.map(pseudonym));
          return;
        case 'all':
          clearAll();
          return;
        case 'erased':
          erased(pseudonym(inv.vin), inv.subscriptionId);
      }
    },

    rememberFragment(record, manufacturer, shape, fragment) {
      fragmentBytes += fragment.length;
      if (fragmentBytes > FRAGMENT_BUDGET_BYTES) {
        latest.clear();
        fragmentBytes = 0;
        return;
      }
      let byShape = record.fragments.get(manufacturer);
      if (!byShape) record.fragments.set(manufacturer, (byShape = new Map()));
      if (byShape.size >= MAX_FRAGMENTS_PER_VIN) byShape.clear();
      byShape.set(shape, fragment);
    },

    applyReceived(inv: ReceivedInvalidation) {
      if (inv.kind === 'data') dropData(inv.pseudonyms);
      else if (inv.kind === 'erased') erased(inv.pseudonym, inv.subscriptionId);
      else this.apply(inv);
    },

    // Called by the bus when the channel is lost, (re)established or closed.
    clear() {
      clearAll();
      opts.forgetAll();
    },
  };
}

/** A fragment built before from this VIN's payloads for this manufacturer and request shape. */
export function fragmentOf(record: LatestOfVin, manufacturer: string, shape: string): Buffer | undefined {
  return record.fragments.get(manufacturer)?.get(shape);
}
