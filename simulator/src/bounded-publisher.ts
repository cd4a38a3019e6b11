import type { MqttClient } from 'mqtt';

export interface PublisherStats {
  /** Handed to the client. */
  sent: number;
  /** Acknowledged by the broker (PUBACK). */
  acked: number;
  failed: number;
}

/** Thrown to waiting publishers once the publisher is closed. */
export class PublisherClosedError extends Error {
  constructor() {
    super('the simulator publisher is closed');
    this.name = 'PublisherClosedError';
  }
}

/**
 * QoS 1 publishing that never floods the broker: at most `maxInflight` messages await their
 * PUBACK at once (a caller waits for a free slot, so a slow or absent broker slows the
 * simulator instead of growing memory), and at most `ratePerSecond` messages leave per second
 * (0: unlimited). Pacing uses the real monotonic clock: it is about the broker, not the
 * simulated time.
 */
export class BoundedPublisher {
  readonly stats: PublisherStats = { sent: 0, acked: 0, failed: 0 };
  private inflight = 0;
  private slotWaiters: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  private nextSendAt = 0;
  private closed = false;

  constructor(
    private readonly client: MqttClient,
    private readonly opts: { maxInflight: number; ratePerSecond: number; onError: (err: Error) => void },
  ) {}

  /** Resolves once the message is handed to the client (not when acknowledged). */
  async publish(topic: string, payload: string): Promise<void> {
    await this.pace();
    while (this.inflight >= this.opts.maxInflight && !this.closed) {
      await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
    }
    if (this.closed) throw new PublisherClosedError();
    this.inflight++;
    this.stats.sent++;
    this.client.publishAsync(topic, payload, { qos: 1 }).then(
      () => this.settle(true),
      (err: Error) => {
        this.settle(false);
        this.opts.onError(err);
      },
    );
  }

  /** Waits until every message handed over so far is acknowledged or failed. */
  async drain(): Promise<void> {
    while (this.inflight > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops accepting messages; waiting callers get PublisherClosedError. */
  close(): void {
    this.closed = true;
    for (const wake of this.slotWaiters.splice(0)) wake();
  }

  get inFlight(): number {
    return this.inflight;
  }

  private settle(ok: boolean): void {
    this.inflight--;
    if (ok) this.stats.acked++;
    else this.stats.failed++;
    this.slotWaiters.shift()?.();
    if (this.inflight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /**
   * Token-bucket pacing: a message may leave up to 25 ms ahead of its slot, so at high rates
   * we sleep in 25 ms slices rather than once per message (timers are too coarse for that).
   */
  private async pace(): Promise<void> {
    if (this.closed) throw new PublisherClosedError();
    const rate = this.opts.ratePerSecond;
    if (rate <= 0) return;
    const now = performance.now();
    this.nextSendAt = Math.max(this.nextSendAt, now) + 1000 / rate;
    const wait = this.nextSendAt - now;
    if (wait > 25) await new Promise((resolve) => setTimeout(resolve, wait));
    if (this.closed) throw new PublisherClosedError();
  }
}
