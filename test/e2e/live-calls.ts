import type { TestConsumer } from '../helpers/app.ts';
import type { LiveApp } from '../consent/harness.ts';

/** A consumer's call to the live app over real HTTP, with its API key and subscription. */
export async function consumerCall<T>(t: LiveApp, c: TestConsumer, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${t.origin}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...c.headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** Polls until `check` returns a truthy value (then returns it); the simulator and workers run on their own time. */
export async function waitFor<T>(check: () => Promise<T | null | false>, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
