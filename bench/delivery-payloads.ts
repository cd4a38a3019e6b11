/**
 * The 20 pull items of the delivery benchmark and a catalog-valid payload for each, so the
 * benchmark reads and serializes realistic data points (value, unit, timestamp).
 */
export const BENCH_ITEMS: Record<string, { unit?: string; max: number }> = {
  batteryvoltage: { unit: 'V', max: 15 },
  accessorybatteryvoltage: { unit: 'V', max: 15 },
  backupbatteryvoltage: { unit: 'V', max: 15 },
  sochighlevel: { unit: 'PERCENTAGE', max: 100 },
  soclowlevel: { unit: 'PERCENTAGE', max: 100 },
  brakefluidliferemaining: { unit: 'PERCENTAGE', max: 100 },
  brakesliferemaining: { unit: 'PERCENTAGE', max: 100 },
  brakesservicedistance: { unit: 'km', max: 30000 },
  chargingpotential: { unit: 'V', max: 800 },
  chargingpower: { unit: 'A', max: 300 },
  coolanttemperature: { unit: 'C', max: 120 },
  dieselexhaustfluidlevel: { unit: 'PERCENTAGE', max: 100 },
  dieselexhaustfluidlevelrangeremaining: { unit: 'km', max: 5000 },
  energyconsumptionauxiliary: { unit: 'kWh', max: 10 },
  averagedistance: { unit: 'km', max: 1000 },
  convertibletopposition: { unit: 'PERCENTAGE', max: 100 },
  mileage: { unit: 'km', max: 300000 },
  fuellevel: { unit: 'PERCENTAGE', max: 100 },
  vehiclespeed: { unit: 'km/h', max: 250 },
  crashseverity: { max: 5 },
};

export const BENCH_ITEM_NAMES = Object.keys(BENCH_ITEMS);

export function benchPayload(item: string, atMs: number, seed: number): Record<string, unknown> {
  const spec = BENCH_ITEMS[item]!;
  const value = Math.round(((seed * 7919) % 1000) / 1000 * spec.max * 10) / 10;
  return spec.unit ? { value, unit: spec.unit, timestamp: new Date(atMs).toISOString() } : { value, timestamp: new Date(atMs).toISOString() };
}
