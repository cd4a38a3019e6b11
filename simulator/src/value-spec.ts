import { noise, round } from './noise.ts';
import { SIGNAL_PATHS, type SignalPath, type ValueSpec } from './scenario-types.ts';

/**
 * Evaluates a scenario's ValueSpec at a grid minute. Constants come out exactly as written
 * (S13's 12.0 V is 12.0 at every sample); ranges vary per VIN and minute; trends are sawtooth
 * ramps over their period, anchored at the Unix epoch so they are pure functions of time.
 */
export function evaluate(spec: ValueSpec, ctx: { seed: number; minute: number; driving: boolean }, path: SignalPath): number {
  if ('constant' in spec) return spec.constant;
  if ('driving' in spec) return evaluate(ctx.driving ? spec.driving : spec.parked, ctx, path);
  const span = spec.max - spec.min;
  if (spec.trend) {
    const period = Math.max(1, Math.round((spec.periodHours ?? 24) * 60));
    const phase = (((ctx.minute % period) + period) % period) / period;
    return round(spec.trend === 'rising' ? spec.min + span * phase : spec.max - span * phase, 2);
  }
  return round(spec.min + span * noise(ctx.seed, ctx.minute, 100 + SIGNAL_PATHS.indexOf(path)), 2);
}

/** Checks what the schema cannot: min ≤ max everywhere in a spec. */
export function checkValueSpec(spec: ValueSpec, path: string): void {
  if ('driving' in spec) {
    checkValueSpec(spec.driving, `${path}.driving`);
    checkValueSpec(spec.parked, `${path}.parked`);
  } else if ('min' in spec && spec.min > spec.max) {
    throw new Error(`signals.${path}: min ${spec.min} is above max ${spec.max}`);
  }
}
