/**
 * Variables at run time: a frame per block and per function call, chained to the enclosing
 * one (JSONata's `createFrame`), and the functions a mapping defines with `$f := function(...)`.
 */

export type Node = (input: unknown, env: Frame) => unknown;

export class Frame {
  private readonly vars = new Map<string, unknown>();

  /** `inLambda`: the frame belongs to a call of a mapping's function (a call from there to another bails out). */
  constructor(
    private readonly parent: Frame | undefined,
    readonly inLambda: boolean,
  ) {}

  bind(name: string, value: unknown): void {
    this.vars.set(name, value);
  }

  lookup(name: string): unknown {
    for (let f: Frame | undefined = this; f; f = f.parent) {
      const v = f.vars.get(name);
      if (v !== undefined || f.vars.has(name)) return v;
    }
    return undefined;
  }
}

/** A function defined in the mapping: its body runs on the context and in the frame of its definition. */
export class Lambda {
  constructor(
    readonly params: readonly string[],
    readonly body: Node,
    readonly env: Frame,
    readonly input: unknown,
  ) {}
}
