import type { SimZone } from '../../../simulator/src/sample.ts';
import type { Vehicle } from '../../../simulator/src/vehicle.ts';
import { signalsOfMinute, type KestrelSignal } from './signals.ts';

/** A place in a vehicle's signal log: the grid minute and the signal's index within it. */
export interface LogPosition {
  minute: number;
  index: number;
}

/** Oldest data a cursor can reach back to, in minutes (a week), as a real API keeps a limited history. */
const HISTORY_MINUTES = 7 * 1440;

/** The cursor of a position: opaque to the poller, readable here. */
export function encodeCursor(p: LogPosition): string {
  return `k1.${p.minute}.${p.index}`;
}

/** The position of a cursor, or null when it is not one this API gave out. */
export function decodeCursor(cursor: string): LogPosition | null {
  const m = /^k1\.(\d{1,10})\.(\d{1,4})$/.exec(cursor);
  return m ? { minute: Number(m[1]), index: Number(m[2]) } : null;
}

export interface Page {
  signals: KestrelSignal[];
  next: LogPosition;
  hasMore: boolean;
}

/**
 * Up to `limit` signals of the vehicle's log from `from` (oldest first) up to and including the
 * minute `nowMinute`. Asked again from the same position it gives the same signals, and more
 * once time has moved on.
 */
export function readPage(v: Vehicle, from: LogPosition, limit: number, nowMinute: number, zone: SimZone): Page {
  let { minute, index } = from.minute < nowMinute - HISTORY_MINUTES ? { minute: nowMinute - HISTORY_MINUTES, index: 0 } : from;
  const signals: KestrelSignal[] = [];
  while (signals.length < limit && minute <= nowMinute) {
    const all = signalsOfMinute(v, minute, zone);
    const taken = all.slice(index, index + limit - signals.length);
    signals.push(...taken);
    index += taken.length;
    if (index >= all.length) {
      minute++;
      index = 0;
    }
  }
  return { signals, next: { minute, index }, hasMore: minute <= nowMinute };
}
