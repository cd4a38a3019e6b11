/**
 * Our registered helper functions (src/mapping/helpers.ts) called from compiled code, with the
 * check JSONata makes of their signature before each call. Only simple signatures are modelled
 * (one type or a choice of plain types per parameter, every argument passed); a helper with
 * another signature makes the mapping run interpreted, and arguments of a type the signature
 * refuses are a bail-out (the interpreter raises T0410).
 */

import type { Helper } from '../helpers.ts';
import { bail, Unsupported } from './bail.ts';
import type { Builtin } from './builtins.ts';
import { symbolOf } from './builtins.ts';

const TYPE_SYMBOLS: Record<string, string> = { s: 's', n: 'n', b: 'b', l: 'l', o: 'o', j: 'asnblom', x: 'asnblfom' };

/** The symbols each parameter accepts (undefined, `m`, is always accepted). */
function parameterSymbols(signature: string): string[] {
  const body = /^<([^:>]*)(?::[^>]*)?>$/.exec(signature)?.[1];
  if (body === undefined) throw new Unsupported(`helper signature ${signature}`);
  const params: string[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '-' || c === '?') continue;
    if (c === '(') {
      const end = body.indexOf(')', i);
      const choice = body.slice(i + 1, end);
      if (![...choice].every((t) => t in TYPE_SYMBOLS)) throw new Unsupported(`helper signature ${signature}`);
      params.push([...choice].map((t) => TYPE_SYMBOLS[t]).join(''));
      i = end;
    } else if (c in TYPE_SYMBOLS) params.push(TYPE_SYMBOLS[c]!);
    else throw new Unsupported(`helper signature ${signature}`);
  }
  return params;
}

export function helperBuiltin(name: string, helper: Helper): Builtin {
  const params = parameterSymbols(helper.signature);
  return {
    arities: [params.length],
    call: (args) => {
      for (let i = 0; i < params.length; i++) {
        const s = symbolOf(args[i]);
        if (s !== 'm' && !params[i]!.includes(s)) bail(`$${name}: argument ${i + 1} of type ${s}`);
      }
      return helper.impl(...args);
    },
  };
}
