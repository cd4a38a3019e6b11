import type { EventMessage, RawEvent } from './raw-format.ts';
import type { SimZone } from './sample.ts';
import { UTC } from './sample.ts';
import { DAY_MINUTES, gridInstant, gridPoint } from './time-grid.ts';
import type { DailyEvent, Vehicle } from './vehicle.ts';

/**
 * The events a vehicle raises in the interval (from, to]: a pure function of the vehicle and
 * the interval, so consecutive publishing rounds over adjacent intervals send each event once.
 */
export function eventsBetween(v: Vehicle, from: Date | number, to: Date | number, zone: SimZone = UTC): EventMessage[] {
  const fromMs = +from;
  const toMs = +to;
  if (v.events.length === 0 || toMs <= fromMs) return [];
  const first = gridPoint(fromMs, zone.utcOffsetMinutes).day;
  const last = gridPoint(toMs, zone.utcOffsetMinutes).day;
  const out: EventMessage[] = [];
  for (let day = first; day <= last; day++) {
    for (const e of v.events) {
      const at = gridInstant(day * DAY_MINUTES + e.minuteOfDay, zone.utcOffsetMinutes);
      const ms = at.getTime();
      if (ms > fromMs && ms <= toMs) out.push(message(v, e, at));
    }
  }
  return out;
}

/**
 * The vehicle's most recent event of each type strictly before `instant` (events repeat
 * daily, so the last day holds them all), oldest first: what the vehicle reports on connecting,
 * so its latest values reflect its scenario from the first moment (a crashed vehicle answers
 * its last crash at once).
 */
export function lastEventsBefore(v: Vehicle, instant: Date | number, zone: SimZone = UTC): EventMessage[] {
  const toMs = +instant - 1;
  const latest = new Map<string, EventMessage>();
  for (const e of eventsBetween(v, toMs - DAY_MINUTES * 60_000, toMs, zone)) latest.set(e.event.type, e);
  return [...latest.values()].sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
}

function message(v: Vehicle, e: DailyEvent, at: Date): EventMessage {
  const occurredAt = at.toISOString();
  const event = rawEvent(e);
  return {
    schema: 'virtual.event/1',
    messageId: `${v.vin}:${event.type.toLowerCase()}:${occurredAt}`,
    vin: v.vin,
    occurredAt,
    event,
  };
}

function rawEvent({ entry, index }: DailyEvent): RawEvent {
  switch (entry.type) {
    case 'CRASH':
      return {
        type: 'CRASH',
        severity: entry.severity,
        zones: entry.zonesCycle ? entry.zonesCycle[index % entry.zonesCycle.length]! : (entry.zones ?? ['FRONT_LEFT']),
        rollover: entry.rollover ?? false,
        pedestrianProtection: entry.pedestrianProtection ?? false,
      };
    case 'MANUAL_EMERGENCY_CALL':
      return { type: 'MANUAL_EMERGENCY_CALL' };
    case 'TELESERVICE_CALL':
      return { type: 'TELESERVICE_CALL', reason: entry.reason };
  }
}
