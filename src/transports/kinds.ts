import { httpTransport, type HttpTransport } from './http/kind.ts';
import type { TransportKind } from './kind.ts';
import { mqttTransport, type MqttTransport } from './mqtt/kind.ts';
import { pollTransport, type PollTransport } from './poll/kind.ts';

/**
 * The registration of transport kinds: a manifest's `transport` is one of these, and a new
 * kind is added here (its type and its descriptor) and in its own folder, nowhere else
 * (docs/adding-a-manufacturer.md, "Adding a transport kind").
 */
export type AdapterTransport = MqttTransport | HttpTransport | PollTransport;

/**
 * Every registered kind. Each descriptor takes its own transport type only; the cast is sound
 * because transportKind() hands a manifest's transport to the descriptor of its kind alone.
 */
export const TRANSPORT_KINDS: readonly TransportKind<AdapterTransport>[] = [mqttTransport, httpTransport, pollTransport] as unknown as TransportKind<AdapterTransport>[];

/** The descriptor of a manifest's transport (the schema admits only registered kinds). */
export function transportKind(t: AdapterTransport): TransportKind<AdapterTransport> {
  const kind = TRANSPORT_KINDS.find((k) => k.kind === t.kind);
  if (!kind) throw new Error(`unknown transport kind ${JSON.stringify(t.kind)}`);
  return kind;
}
