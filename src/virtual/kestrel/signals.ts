import { eventsBetween } from '../../../simulator/src/events.ts';
import { sample, type SimZone } from '../../../simulator/src/sample.ts';
import { gridInstant, MINUTE_MS } from '../../../simulator/src/time-grid.ts';
import type { Vehicle } from '../../../simulator/src/vehicle.ts';

/** One signal as the Kestrel API serves it (adapters/kestrel/README.md). */
export interface KestrelSignal {
  path: string;
  value: number | boolean;
  unit?: string;
  ts: string;
}

const BATTERY = 'Vehicle.Powertrain.TractionBattery.';
const ENGINE = 'Vehicle.Powertrain.CombustionEngine.';

/**
 * The signals a Kestrel vehicle reports for one grid minute of simulated time: the simulator's
 * sample of that minute (the same engine and scenarios as the virtual manufacturer's vehicles)
 * as flat VSS signals, then the crashes of that minute. A pure function of the vehicle and the
 * minute, so a page asked for twice holds the same signals.
 */
export function signalsOfMinute(v: Vehicle, minute: number, zone: SimZone): KestrelSignal[] {
  const at = gridInstant(minute, zone.utcOffsetMinutes);
  const { signals: s, sampledAt: ts } = sample(v, at, zone);
  const out: KestrelSignal[] = [
    { path: 'Vehicle.TraveledDistance', value: s.odometerKm, unit: 'km', ts },
    { path: 'Vehicle.Speed', value: s.motion.speedKmh, unit: 'km/h', ts },
    { path: 'Vehicle.CurrentLocation.Latitude', value: s.position.lat, unit: 'degrees', ts },
    { path: 'Vehicle.CurrentLocation.Longitude', value: s.position.lon, unit: 'degrees', ts },
    { path: `${ENGINE}ECT`, value: s.engine.coolantC, unit: 'celsius', ts },
    { path: `${ENGINE}IsRunning`, value: s.engine.running, ts },
  ];
  if (s.fuel) out.push({ path: 'Vehicle.Powertrain.FuelSystem.RelativeLevel', value: s.fuel.levelPct, unit: 'percent', ts });
  if (s.lowVoltage) out.push({ path: 'Vehicle.LowVoltageBattery.CurrentVoltage', value: s.lowVoltage.mainV, unit: 'V', ts });
  if (s.traction) {
    const c = s.traction.charging;
    out.push(
      { path: `${BATTERY}StateOfCharge.Current`, value: s.traction.socPct, unit: 'percent', ts },
      { path: `${BATTERY}Charging.IsChargingCableConnected`, value: c.plug === 'CONNECTED', ts },
      { path: `${BATTERY}Charging.IsCharging`, value: c.status === 'ACTIVE', ts },
    );
    if (c.status === 'ACTIVE' && c.method === 'DIRECT') {
      out.push({ path: `${BATTERY}Charging.ChargeCurrent.DC`, value: c.lastMaxCurrentA, unit: 'A', ts }, { path: `${BATTERY}Charging.ChargeVoltage.DC`, value: c.lastVoltageV, unit: 'V', ts });
    }
  }
  // Events of (previous minute, this minute]: they fall on the grid, so at this minute's instant.
  for (const e of eventsBetween(v, at.getTime() - MINUTE_MS, at, zone)) {
    if (e.event.type !== 'CRASH') continue;
    out.push({ path: 'Vehicle.Safety.Crash.IsDetected', value: true, ts: e.occurredAt }, { path: 'Vehicle.Safety.Crash.Severity', value: e.event.severity, ts: e.occurredAt });
  }
  return out;
}
