/**
 * The two ways the JavaScript translation of a mapping steps aside for the JSONata interpreter.
 *
 * `Unsupported` is thrown at compile time for a construct the translator does not model: the
 * whole mapping then runs interpreted. `Bail` is thrown at run time when the compiled code meets
 * a case it does not model exactly (a type JSONata would raise an error on, a helper called with
 * the wrong types, a limit reached): that one input is evaluated again by the interpreter, so
 * errors and edge results always come from JSONata itself.
 */

export class Unsupported extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'Unsupported';
  }
}

export class Bail extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'Bail';
  }
}

export function bail(reason: string): never {
  throw new Bail(reason);
}
