/** Not any argument: the state before the first call. */
const NOTHING: unique symbol = Symbol('nothing yet');

/**
 * A pure function of a string or number that keeps its last answer: called again with the same
 * argument, it answers without computing. A telemetry message's items mostly carry one
 * timestamp, so its checks and conversions of that time run once per message, not once per item.
 * NaN never equals itself, so it is always computed.
 */
export function rememberLast<A extends string | number, R>(compute: (arg: A) => R): (arg: A) => R {
  let lastArg: A | typeof NOTHING = NOTHING;
  let lastAnswer: R;
  return (arg) => {
    if (arg !== lastArg) {
      lastAnswer = compute(arg);
      lastArg = arg;
    }
    return lastAnswer;
  };
}
