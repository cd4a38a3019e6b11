import type { PipelineContext } from './context.ts';
import { quarantineIdOf, type RawMessage } from '../domain/raw-message.ts';
import { FIRST_RECEPTION } from '../queues/keys.ts';

/** How long the first reception of a message without vehicle time is remembered. */
const REMEMBER_S = 24 * 3600;

/**
 * When these very bytes (manufacturer, type, topic, body) were first received, recorded now if
 * this is the first time. Only asked for a message whose items carry no vehicle time, which
 * are keyed by their reception: a re-sent publish or a replayed HTTP batch is the same message
 * received later and must keep the first time, or it becomes a second event in history and a
 * second webhook. A key per such message, for a day.
 */
export async function firstReception(services: Pick<PipelineContext, 'config' | 'redis'>, msg: RawMessage): Promise<string> {
  const key = FIRST_RECEPTION.key(services.config.QUEUE_PREFIX, quarantineIdOf(msg));
  const [, [err, first]] = (await services.redis.multi().set(key, msg.receivedAt, 'EX', REMEMBER_S, 'NX').get(key).exec()) as [unknown, [Error | null, string | null]];
  if (err) throw err;
  return first ?? msg.receivedAt;
}
