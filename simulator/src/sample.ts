import { ageDays, brakes, checkControl, diesel, environment, lowVoltage, nextService, roof, serviceMessages, trips } from './body-signals.ts';
import { bodyState } from './body-state.ts';
import { ambientC } from './day-profile.ts';
import { troubleCodes } from './diagnostics.ts';
import { kinematics } from './kinematics.ts';
import { round, signedNoise } from './noise.ts';
import type { TelemetryMessage, TelemetrySignals } from './raw-format.ts';
import type { SignalPath } from './scenario-types.ts';
import { traction } from './traction.ts';
import { gridInstant, gridPoint, type GridPoint } from './time-grid.ts';
import { evaluate } from './value-spec.ts';
import type { Vehicle } from './vehicle.ts';

export interface SimZone {
  /** Offset of the vehicles' schedules from UTC (SIM_UTC_OFFSET_MINUTES). */
  utcOffsetMinutes: number;
}

export const UTC: SimZone = { utcOffsetMinutes: 0 };

const CH_COOLANT = 31;

/**
 * The raw telemetry a vehicle reports for the grid minute containing `instant`. A pure
 * function of the vehicle and the minute: call it twice, get the same message.
 */
export function sample(v: Vehicle, instant: Date | number, zone: SimZone = UTC): TelemetryMessage {
  const g = gridPoint(instant, zone.utcOffsetMinutes);
  const kin = kinematics(v, g, zone.utcOffsetMinutes);
  const age = ageDays(v, g);
  const signals: TelemetrySignals = {
    motion: { speedKmh: kin.speedKmh, headingDeg: round(kin.position.headingDeg, 1), accel: kin.accel },
    position: { lat: round(kin.position.lat, 6), lon: round(kin.position.lon, 6) },
    odometerKm: kin.odometerKm,
    engine: {
      running: kin.driving,
      coolantC: round(v.profile.coolant[g.minuteOfDay]! + 0.3 * signedNoise(v.seed, g.minute, CH_COOLANT), 1),
      ignition: kin.driving ? 'ON' : 'OFF',
    },
  };
  const has = (group: Parameters<typeof v.groups.has>[0]) => v.groups.has(group);
  if (has('fuel')) signals.fuel = fuel(v, g);
  if (has('diesel')) signals.diesel = diesel(kin.odometerKm, kin.speedKmh);
  if (has('traction')) signals.traction = traction(v, g, zone.utcOffsetMinutes);
  if (has('lowVoltage')) signals.lowVoltage = lowVoltage(v, g);
  if (has('brakes')) signals.brakes = brakes(kin.odometerKm, age);
  if (has('serviceMessages')) {
    signals.serviceMessages = serviceMessages(v, kin.odometerKm, g, age);
    signals.service = nextService(kin.odometerKm);
  }
  if (has('trips')) signals.trips = trips(v);
  if (has('roof')) signals.roof = roof(v, g);
  if (has('environment')) signals.environment = environment(v, g);
  if (has('body')) signals.body = bodyState(v, g, signals.environment?.outsideC ?? ambientC(g.minuteOfDay));
  const codes = has('diagnostics') || has('checkControl') ? troubleCodes(v, g, zone.utcOffsetMinutes) : [];
  if (has('diagnostics')) signals.diagnostics = { codes };
  if (has('vehicleInfo')) signals.vehicleInfo = v.info;
  applyOverrides(v, signals, { seed: v.seed, minute: g.minute, driving: kin.driving });
  // After the overrides, so the messages follow the values actually sent.
  if (has('checkControl')) {
    signals.checkControl = checkControl(v, g, { padLifePct: signals.brakes?.padLifePct, dieselFluidPct: signals.diesel?.exhaustFluidPct, codes });
  }
  const sampledAt = gridInstant(g.minute, zone.utcOffsetMinutes).toISOString();
  return {
    schema: 'virtual.telemetry/1',
    messageId: `${v.vin}:${sampledAt}`,
    vin: v.vin,
    sampledAt,
    powertrain: v.powertrain,
    signals,
  };
}

/** Fuel level and the range it gives at the scenario's consumption. */
function fuel(v: Vehicle, g: GridPoint): NonNullable<TelemetrySignals['fuel']> {
  const levelPct = v.profile.level[g.minuteOfDay]!;
  const { capacity, consumptionPer100Km } = v.scenario.energy;
  return { levelPct: round(levelPct, 2), rangeKm: Math.round(((levelPct / 100) * capacity * 100) / consumptionPer100Km) };
}

/** Scenario `signals` replace generated values, in groups the vehicle sends. */
function applyOverrides(v: Vehicle, signals: TelemetrySignals, ctx: { seed: number; minute: number; driving: boolean }): void {
  const overrides = v.scenario.signals;
  if (!overrides) return;
  for (const [path, spec] of Object.entries(overrides) as [SignalPath, NonNullable<(typeof overrides)[SignalPath]>][]) {
    const [group, field] = path.split('.') as [keyof TelemetrySignals, string];
    const target = signals[group] as Record<string, unknown> | undefined;
    if (target && typeof target === 'object') target[field] = evaluate(spec, ctx, path);
  }
}
