import type Database from 'better-sqlite3';
import type { ReportsRepo, FleetVehicle, FunnelRow } from '../contract.ts';
import { fleetBounds, mergeVins } from '../fleet-page.ts';

/** The funnel reads processes by creation time; the consents table has no such index of its own. */
const SCHEMA = `CREATE INDEX IF NOT EXISTS consents_created_idx ON consents (created_at);`;

interface FunnelSqlRow {
  manufacturer: string | null;
  started: number;
  portal: number;
  oem: number;
  active: number;
  revoked: number;
}

/**
 * SQLite engine of the ReportsRepo. Needs the vehicles, latest_values and consents tables, so it
 * is created after their repositories.
 */
export function createSqliteReportsRepo(db: Database.Database): ReportsRepo {
  db.exec(SCHEMA);
  const funnel = db.prepare<[string, string], FunnelSqlRow>(
    `SELECT manufacturer, count(*) AS started, count(consent_given_at) AS portal, count(activated_at) AS oem,
            sum(state IN ('ACTIVE', 'CONFIRMED')) AS active, sum(state = 'REVOKED') AS revoked
     FROM consents WHERE created_at >= ? AND created_at < ?
     GROUP BY manufacturer ORDER BY manufacturer IS NULL, manufacturer`,
  );
  const latestOf = db.prepare<[string], { vin: string; manufacturer: string; last: string }>(
    `SELECT vin, manufacturer, received_at AS last FROM latest_values WHERE vin IN (SELECT value FROM json_each(?))`,
  );
  const claimedOf = db.prepare<[string], { vin: string; manufacturer: string | null }>(
    `SELECT vin, max(manufacturer) AS manufacturer FROM vehicles WHERE vin IN (SELECT value FROM json_each(?)) GROUP BY vin`,
  );

  /** The first `limit` distinct VINs of a table in the page's range (DISTINCT walks the vin index in order). */
  function vinsOf(table: 'latest_values' | 'vehicles', q: Parameters<ReportsRepo['fleet']>[0], limit: number): string[] {
    const b = fleetBounds(q);
    const where = [b.inclusive ? 'vin >= @from' : 'vin > @from', ...(b.hi ? ['vin < @hi'] : []), ...(q.manufacturer ? ['manufacturer = @m'] : [])];
    const sql = `SELECT DISTINCT vin FROM ${table} WHERE ${where.join(' AND ')} ORDER BY vin LIMIT @limit`;
    return db
      .prepare<[Record<string, unknown>], { vin: string }>(sql)
      .all({ from: b.from, ...(b.hi ? { hi: b.hi } : {}), ...(q.manufacturer ? { m: q.manufacturer } : {}), limit })
      .map((r) => r.vin);
  }

  /** One column per instant: the statement is made once per number of instants asked. */
  const freshnessOf = new Map<number, Database.Statement<string[], Record<string, number | null>>>();
  const freshnessStatement = (n: number) => {
    let st = freshnessOf.get(n);
    if (!st) {
      const columns = Array.from({ length: n }, (_, i) => `, sum(last >= ?) AS s${i}`).join('');
      st = db.prepare<string[], Record<string, number | null>>(`SELECT count(*) AS total${columns} FROM (SELECT received_at AS last FROM latest_values)`);
      freshnessOf.set(n, st);
    }
    return st;
  };

  return {
    async freshness(since) {
      const row = freshnessStatement(since.length).get(...since)!;
      return { total: Number(row.total ?? 0), seenSince: since.map((_, i) => Number(row[`s${i}`] ?? 0)) };
    },
    async fleet(q) {
      const { vins, nextAfter } = mergeVins(vinsOf('latest_values', q, q.limit + 1), vinsOf('vehicles', q, q.limit + 1), q.limit);
      const json = JSON.stringify(vins);
      const latest = new Map(latestOf.all(json).map((r) => [r.vin, r]));
      const claimed = new Map(claimedOf.all(json).map((r) => [r.vin, r.manufacturer]));
      const items = vins.map(
        (vin): FleetVehicle => ({
          vin,
          manufacturer: latest.get(vin)?.manufacturer ?? claimed.get(vin) ?? null,
          lastReceivedAt: latest.get(vin)?.last ?? null,
        }),
      );
      return { items, nextAfter };
    },
    async consentFunnel(since, until) {
      return funnel.all(since, until).map(
        (r): FunnelRow => ({
          manufacturer: r.manufacturer,
          started: r.started,
          approvedAtPortal: r.portal,
          approvedAtManufacturer: r.oem,
          active: r.active,
          revoked: r.revoked,
        }),
      );
    },
  };
}
