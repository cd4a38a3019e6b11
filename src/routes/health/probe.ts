/** How long one readiness check may take before it counts as failed. */
export const PROBE_TIMEOUT_MS = 2000;

/** One check's outcome: the public verdict, and the detail that goes only to the log. */
export interface ProbeResult {
  status: 'ok' | 'timeout' | 'unreachable';
  detail?: string;
}

/** Runs one check under a timeout. Never throws. */
export async function probe(check: () => Promise<void>, timeoutMs = PROBE_TIMEOUT_MS): Promise<ProbeResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const outcome = await Promise.race([check().then(() => 'ok' as const), timeout]);
    return { status: outcome };
  } catch (err) {
    return { status: 'unreachable', detail: err instanceof Error ? err.message.slice(0, 300) : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the checks in parallel, so one slow dependency does not add to the others' time. */
export async function probeAll(checks: Record<string, () => Promise<void>>): Promise<Record<string, ProbeResult>> {
  const names = Object.keys(checks);
  const results = await Promise.all(names.map((n) => probe(checks[n]!)));
  return Object.fromEntries(names.map((n, i) => [n, results[i]!]));
}
