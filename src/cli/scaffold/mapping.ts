import type { ScaffoldPlan } from './plan.ts';

const T = '2026-11-25T10:00:00Z';
const EXPECTED_T = '2026-11-25T10:00:00.000Z';

/** One raw message as the manufacturer would send (or its API serve) it. */
export function fixture(p: ScaffoldPlan): unknown {
  if (p.transport === 'poll') {
    return {
      vin: p.exampleVin,
      nextCursor: 'c.000002',
      hasMore: false,
      signals: [
        { path: 'Vehicle.TraveledDistance', value: 12345.6, unit: 'km', ts: T },
        { path: 'Vehicle.Speed', value: 42, unit: 'km/h', ts: T },
      ],
    };
  }
  const message = { vin: p.exampleVin, sampledAt: T, odometer: { value: 12345.6, unit: 'km' } };
  // An HTTP batch's record names its type in the manifest's transport.typeField.
  return p.transport === 'http' ? { type: p.messageType, ...message } : message;
}

/** The mapping: one item, `mileage`, written as every further item will be. */
export function mapping(p: ScaffoldPlan): string {
  // The name inside a comment: a "*/" in it would end the comment and start mapping code.
  const header = `/* ${p.name.replaceAll('*/', '* /')}: ${p.messageType} messages (raw format: adapters/${p.id}/README.md) → catalog items.
   One line per catalog item; a payload's shape is in catalog/<item>.json, the helpers
   ($isoTime, $distance, $speed, $temperature, $percentage, $roundTo, $snapshots) in
   mappings/README.md. Prove each item with a case in mappings/${p.id}/cases/. */
`;
  if (p.transport === 'poll') {
    return `${header}(
  $vin := vin;
  $snapshots(signals).(
    $ts := timestamp;
    $at := signals;
    $odo := $lookup($at, "Vehicle.TraveledDistance");
    {
      "vin": $vin,
      "items": {
        "mileage": $odo ? { "value": $round($distance($odo.value, $odo.unit, "km")), "unit": "km", "timestamp": $ts }
      }
    }
  )
)
`;
  }
  return `${header}(
  $ts := $isoTime(sampledAt);
  {
    "vin": vin,
    "items": {
      "mileage": odometer ? { "value": $round($distance(odometer.value, odometer.unit, "km")), "unit": "km", "timestamp": $ts }
    }
  }
)
`;
}

/** The case proving the mapping on the fixture. */
export function mappingCase(p: ScaffoldPlan): unknown {
  return {
    description: `The fixture's odometer becomes mileage in whole km at the time it was sampled.`,
    messageType: p.messageType,
    fixture: fixtureName(p),
    expect: { items: [{ vin: p.exampleVin, item: 'mileage', payload: { value: 12346, unit: 'km', timestamp: EXPECTED_T } }] },
  };
}

export const fixtureName = (p: ScaffoldPlan): string => `${p.id}.${p.messageType}.json`;
