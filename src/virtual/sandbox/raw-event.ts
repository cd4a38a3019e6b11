import { randomUUID } from 'node:crypto';
import { CRASH_ZONES, type CrashZone, type EventMessage, type RawEvent } from '../../../simulator/src/raw-format.ts';

/** The event items a consumer can make a virtual vehicle raise, and their raw event types. */
export const SANDBOX_EVENTS = {
  accidentautomatic: 'CRASH',
  accidentcallmanual: 'MANUAL_EMERGENCY_CALL',
  automaticteleservicecall: 'TELESERVICE_CALL',
} as const satisfies Record<string, RawEvent['type']>;
export type SandboxEventType = keyof typeof SANDBOX_EVENTS;

export { CRASH_ZONES };

/** The request body of POST /sandbox/v1/vehicles/{vin}/events. */
export interface SandboxEventInput {
  type: SandboxEventType;
  severity?: number;
  zones?: CrashZone[];
  rollover?: boolean;
  pedestrianProtection?: boolean;
  reason?: string;
}

const CRASH_FIELDS = ['severity', 'zones', 'rollover', 'pedestrianProtection'] as const;

/** Why the input cannot be sent (fields of another event type), or null. */
export function inputProblem(input: SandboxEventInput): string | null {
  const crashFields = CRASH_FIELDS.filter((f) => input[f] !== undefined);
  if (input.type !== 'accidentautomatic' && crashFields.length > 0) return `${crashFields.join(', ')} ${crashFields.length > 1 ? 'apply' : 'applies'} to accidentautomatic only.`;
  if (input.type !== 'automaticteleservicecall' && input.reason !== undefined) return 'reason applies to automaticteleservicecall only.';
  return null;
}

/**
 * The raw message the virtual manufacturer sends for the event (adapters/virtual/README.md,
 * `virtual/v1/<VIN>/event`), as the simulator builds it (simulator/src/events.ts), stamped `at`.
 * The messageId is unique per call, so two calls are two events.
 */
export function sandboxEventMessage(vin: string, input: SandboxEventInput, at: Date): EventMessage {
  const occurredAt = at.toISOString();
  return {
    schema: 'virtual.event/1',
    messageId: `${vin}:sandbox-${input.type}:${occurredAt}:${randomUUID().slice(0, 8)}`,
    vin,
    occurredAt,
    event: rawEvent(input),
  };
}

function rawEvent(input: SandboxEventInput): RawEvent {
  switch (input.type) {
    case 'accidentautomatic':
      return {
        type: 'CRASH',
        severity: input.severity ?? 3,
        zones: input.zones ?? ['FRONT_LEFT'],
        rollover: input.rollover ?? false,
        pedestrianProtection: input.pedestrianProtection ?? false,
      };
    case 'accidentcallmanual':
      return { type: 'MANUAL_EMERGENCY_CALL' };
    case 'automaticteleservicecall':
      return { type: 'TELESERVICE_CALL', reason: input.reason ?? 'SANDBOX' };
  }
}
