import { describe, expect, it } from 'vitest';
import { compileMappingSource, DEFAULT_LIMITS } from '../../../src/mapping/compile.ts';
import { metrics } from '../../../src/metrics/metrics.ts';
import { BINDINGS } from './engines.ts';

async function handovers(mapping: string): Promise<number> {
  const metric = await metrics.mappingHandovers.get();
  return metric.values.find((v) => v.labels.mapping === mapping)?.value ?? 0;
}

/** An operator sees on /metrics when a compiled mapping's messages run at the interpreter's speed. */
describe('cvd_mapping_interpreter_handovers_total', () => {
  it('counts an input the compiled code hands to the interpreter, per mapping file, and not one it runs itself', async () => {
    const mapping = compileMappingSource('/x/handover-probe.jsonata', '{ "next": s + 1 }', { ...DEFAULT_LIMITS, timeoutMs: 10_000 });
    expect(mapping.engine).toBe('compiled');
    const before = await handovers('handover-probe.jsonata');

    expect(await mapping.evaluate({ s: 1 }, BINDINGS)).toEqual({ next: 2 });
    expect(await handovers('handover-probe.jsonata')).toBe(before);

    // A string where a number belongs: JSONata's own error (T2001), from the interpreter.
    await expect(mapping.evaluate({ s: 'one' }, BINDINGS)).rejects.toMatchObject({ code: 'T2001' });
    expect(await handovers('handover-probe.jsonata')).toBe(before + 1);
  });
});
