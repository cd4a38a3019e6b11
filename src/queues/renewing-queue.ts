import type { Queue } from 'bullmq';
import { closeQueue } from './close-queue.ts';

/** A long-lived producer queue, replaced when its connection set-up failed for good. */
export interface RenewingQueue<Q> {
  /** The queue to use now. */
  current(): Q;
  close(): Promise<void>;
}

/**
 * BullMQ runs a queue's connection set-up once (wait for Redis, then a version check) and keeps
 * its outcome for the queue's whole life (bullmq's RedisConnection returns that promise as its
 * client). When Redis goes away in the middle of it, after the connection came up and before the
 * version check answered, every later call on that queue fails with that first error, also
 * once Redis is back: ingest refused every MQTT publish until the process restarted (seen in
 * test/pipeline/qos-gap.test.ts under load). Waiting for Redis itself never fails this way (it
 * reconnects for ever), so a failed set-up means the queue is dead: the next use gets a new one.
 */
export function renewingQueue<Q extends Pick<Queue, 'waitUntilReady' | 'close' | 'disconnect'>>(create: () => Q): RenewingQueue<Q> {
  let queue = create();
  let dead = false;
  const watch = (q: Q) =>
    q.waitUntilReady().catch(() => {
      if (q === queue) dead = true;
    });
  void watch(queue);
  return {
    current() {
      if (dead) {
        const old = queue;
        queue = create();
        dead = false;
        void watch(queue);
        void closeQueue(old).catch(() => undefined);
      }
      return queue;
    },
    close: () => closeQueue(queue),
  };
}
