import type { DataPoint, FleetQuery, FleetVehicle, Store } from '../store/contract.ts';

/** The latest values the fleet table shows, in this order (whatever of them a vehicle has). */
export const KEY_ITEMS = ['mileage', 'sochighlevel', 'fuellevel', 'vehiclespeed', 'geolocation'] as const;
/** How many stored positions draw a vehicle's route on the map. */
export const TRACK_POINTS = 40;

export interface FleetRow extends FleetVehicle {
  activations: { subscriptionId: string; status: string }[];
  /** The newest consent process per subscription. */
  consents: { subscriptionId: string; state: string }[];
  latest: Record<string, Record<string, unknown>>;
}

/**
 * One page of the fleet with everything its table shows: the store's page of VINs, then per
 * VIN its activations and consents (indexed by VIN) and one query for the page's latest values.
 * Never more than one page of vehicles is read.
 */
export async function fleetPage(store: Store, query: FleetQuery): Promise<{ rows: FleetRow[]; nextAfter: string | null }> {
  const page = await store.reports.fleet(query);
  const vins = page.items.map((v) => v.vin);
  const [latest, perVin] = await Promise.all([
    vins.length ? store.dataPoints.latest(vins, [...KEY_ITEMS]) : Promise.resolve([] as DataPoint[]),
    Promise.all(vins.map(async (vin) => ({ activations: await store.vehicles.listByVin(vin), consents: await store.consents.listByVin(vin) }))),
  ]);
  const rows = page.items.map((v, i): FleetRow => {
    const { activations, consents } = perVin[i]!;
    const newest = new Map<string, string>();
    for (const c of consents) if (!newest.has(c.subscriptionId)) newest.set(c.subscriptionId, c.state);
    return {
      ...v,
      activations: activations.map((a) => ({ subscriptionId: a.subscriptionId, status: a.status })),
      consents: [...newest].map(([subscriptionId, state]) => ({ subscriptionId, state })),
      latest: Object.fromEntries(latest.filter((p) => p.vin === v.vin).map((p) => [p.item, p.payload])),
    };
  });
  return { rows, nextAfter: page.nextAfter };
}

export interface MapVehicle {
  vin: string;
  manufacturer: string | null;
  lat: number;
  lon: number;
  at: string;
  /** Older positions first, ending at the current one: [lat, lon] pairs. */
  track: [number, number][];
}

const position = (p: Record<string, unknown>): [number, number] | null =>
  typeof p.latitude === 'number' && typeof p.longitude === 'number' ? [p.latitude, p.longitude] : null;

/** The positions and recent routes of one fleet page's vehicles (those that reported a position). */
export async function fleetMap(store: Store, query: FleetQuery): Promise<MapVehicle[]> {
  const page = await store.reports.fleet(query);
  const tracks = await Promise.all(
    page.items.map(async (v) => {
      const history = await store.dataPoints.history({ vin: v.vin, item: 'geolocation', limit: TRACK_POINTS });
      const points = history.items.reverse();
      const last = points[points.length - 1];
      const track = points.map((p) => position(p.payload)).filter((p): p is [number, number] => p !== null);
      const here = track[track.length - 1];
      return last && here ? { vin: v.vin, manufacturer: v.manufacturer, lat: here[0], lon: here[1], at: new Date(last.timestampMs).toISOString(), track } : null;
    }),
  );
  return tracks.filter((t): t is MapVehicle => t !== null);
}
