/**
 * Translates a JSONata AST into a tree of JavaScript closures, one per node, each doing what
 * the interpreter's `evaluate` does for that node (jsonata 2.x) but synchronously and with the
 * node's shape decided once. A node or a property the translator does not model throws
 * `Unsupported`: the whole mapping then runs interpreted.
 */

import { HELPERS } from '../helpers.ts';
import { JSONATA_FUNCTION_NAMES, MODELLED_PROPERTIES, type AstNode } from './ast.ts';
import { bail, Unsupported } from './bail.ts';
import { BUILTINS, type Builtin } from './builtins.ts';
import { arrayConstructor, objectConstructor } from './constructors.ts';
import { Frame, Lambda, type Node } from './frame.ts';
import { helperBuiltin } from './helper-calls.ts';
import { BINARY_OPERATORS } from './operators.ts';
import { applyFilter, evaluatePath, type Filter, type Step } from './paths.ts';
import type { Scope } from './scope.ts';
import { finish, isJsonataFunction, lookup as lookupName } from './sequence.ts';
import { boolize, isNumeric, toBoolean } from './values.ts';

function checkProperties(ast: AstNode): void {
  for (const [key, value] of Object.entries(ast)) {
    if (value !== undefined && !MODELLED_PROPERTIES.has(key)) throw new Unsupported(`${ast.type} with ${key}`);
  }
  if (ast.signature !== undefined) throw new Unsupported('a function signature');
}

function translateFilter(stage: AstNode, scope: Scope): Filter {
  if (stage.type !== 'filter' || !stage.expr) throw new Unsupported(`a ${stage.type} stage`);
  if (stage.expr.type === 'number') return { index: stage.expr.value as number };
  return { predicate: translate(stage.expr, scope) };
}

/** Nodes whose value is never a sequence: literals, operators (and constructors, `[` giving a plain array). */
const NEVER_A_SEQUENCE = new Set(['string', 'number', 'value', 'binary']);
/** Nodes whose value is a child's, already unwrapped (unwrapping again changes nothing without keepArray). */
const ALREADY_UNWRAPPED = new Set(['condition', 'block', 'bind']);

/**
 * A node as `evaluate` runs it: the node, then its predicates `[...]`, then sequence unwrapping.
 * `tail`: the node ends a function's body (directly, or as a branch of a condition or the last
 * statement of a block that does): there JSONata's parser has turned a call into a tail call (a
 * thunk), whose result the interpreter's `apply` returns as the call gives it, not unwrapped.
 */
export function translate(ast: AstNode, scope: Scope, statement = false, tail = false): Node {
  checkProperties(ast);
  if (ast.stages) throw new Unsupported('stages outside a path');
  if (ast.type === 'lambda' && ast.thunk) {
    if (!tail) throw new Unsupported('a tail call outside the end of a function');
    return translateCall(ast.body!, scope);
  }
  if (tail && (ast.predicate?.length || ast.keepArray) && hasTailCall(ast)) {
    throw new Unsupported('a call at the end of a function that JSONata rewrites as a tail call, under a filter or [] of its condition or block');
  }
  const core = translateCore(ast, scope, statement, tail);
  const filters = (ast.predicate ?? []).map((p) => translateFilter(p, scope));
  const keepArray = ast.keepArray === true;
  const { max } = scope;
  if (filters.length === 0) {
    if (NEVER_A_SEQUENCE.has(ast.type) || (ast.type === 'unary' && ast.value !== '-')) return core;
    if (!keepArray && ALREADY_UNWRAPPED.has(ast.type)) return core;
    return (input, env) => finish(core(input, env), keepArray);
  }
  return (input, env) => {
    let r = core(input, env);
    for (const f of filters) r = applyFilter(f, r, env, max);
    return finish(r, keepArray);
  };
}

/** Whether JSONata's parser turned a call in the tail positions of this node into a thunk. */
function hasTailCall(ast: AstNode | undefined): boolean {
  if (!ast) return false;
  if (ast.type === 'lambda') return ast.thunk === true;
  if (ast.type === 'condition') return hasTailCall(ast.then) || hasTailCall(ast.else);
  if (ast.type === 'block') return hasTailCall(ast.expressions?.at(-1));
  return false;
}

function translateCore(ast: AstNode, scope: Scope, statement: boolean, tail: boolean): Node {
  switch (ast.type) {
    case 'string':
    case 'number':
    case 'value': {
      const value = ast.value;
      return () => value;
    }
    case 'name': {
      const key = String(ast.value);
      const { max } = scope;
      return (input) => lookupName(input, key, max);
    }
    case 'variable':
      return translateVariable(String(ast.value), scope);
    case 'path':
      return translatePath(ast, scope);
    case 'binary':
      return translateBinary(ast, scope);
    case 'unary':
      return translateUnary(ast, scope);
    case 'condition': {
      const condition = translate(ast.condition!, scope);
      const then = translate(ast.then!, scope, false, tail);
      const otherwise = ast.else ? translate(ast.else, scope, false, tail) : undefined;
      return (input, env) => (toBoolean(condition(input, env)) ? then(input, env) : otherwise?.(input, env));
    }
    case 'block': {
      const list = ast.expressions ?? [];
      const nodes = list.map((e, i) => translate(e, scope, i < list.length - 1, tail && i === list.length - 1));
      return (input, env) => {
        const frame = new Frame(env, env.inLambda);
        let result: unknown;
        for (const n of nodes) result = n(input, frame);
        return result;
      };
    }
    case 'bind':
      return translateBind(ast, scope, statement);
    case 'function':
      return translateCall(ast, scope);
    default:
      throw new Unsupported(ast.type === 'lambda' ? 'a function that is not bound by := as a statement' : `a ${ast.type} expression`);
  }
}

function translateVariable(name: string, scope: Scope): Node {
  if (name === '') return (input) => (input && (input as { outerWrapper?: boolean }).outerWrapper ? (input as unknown[])[0] : input);
  if (name === '$') return (_input, env) => env.lookup('$');
  if (JSONATA_FUNCTION_NAMES.has(name) || Object.hasOwn(HELPERS, name)) {
    if (!scope.bound.has(name)) throw new Unsupported(`$${name} used as a value`);
    return (_input, env) => {
      const v = env.lookup(name);
      return v === undefined || v instanceof Lambda ? bail(`$${name} used as a value`) : v;
    };
  }
  return (_input, env) => {
    const v = env.lookup(name);
    return v instanceof Lambda ? bail(`the function $${name} used as a value`) : v;
  };
}

function translatePath(ast: AstNode, scope: Scope): Node {
  const steps: Step[] = (ast.steps ?? []).map((s) => {
    if (s.type === 'sort') throw new Unsupported('a sort step');
    const { stages, ...rest } = s;
    return {
      node: translate(rest as AstNode, scope),
      stages: (stages ?? []).map((st) => translateFilter(st, scope)),
      consarray: s.consarray === true,
      isVariable: s.type === 'variable',
    };
  });
  if (steps.length === 0) throw new Unsupported('an empty path');
  const keepSingletonArray = ast.keepSingletonArray === true;
  const plain = !keepSingletonArray && !ast.keepArray && !ast.predicate;
  const { max } = scope;
  return (input, env) => evaluatePath(steps, keepSingletonArray, plain, input, env, max);
}

function translateBinary(ast: AstNode, scope: Scope): Node {
  const op = String(ast.value);
  const lhs = translate(ast.lhs as AstNode, scope);
  const rhs = translate(ast.rhs!, scope);
  if (op === 'and') return (input, env) => boolize(lhs(input, env)) && boolize(rhs(input, env));
  if (op === 'or') return (input, env) => boolize(lhs(input, env)) || boolize(rhs(input, env));
  const fn = BINARY_OPERATORS[op];
  if (!fn) throw new Unsupported(`the operator ${op}`);
  return (input, env) => fn(lhs(input, env), rhs(input, env));
}

function translateUnary(ast: AstNode, scope: Scope): Node {
  if (ast.value === '[') return arrayConstructor(ast, scope, translate);
  if (ast.value === '{') return objectConstructor(ast, scope, translate);
  if (ast.value === '-') {
    const operand = translate(ast.expression!, scope);
    return (input, env) => {
      const v = operand(input, env);
      if (v === undefined) return undefined;
      return isNumeric(v) ? -v : bail('negation of a non-number');
    };
  }
  throw new Unsupported(`the unary operator ${String(ast.value)}`);
}

/** `$name := value`; a function only as a statement of a block outside any function. */
function translateBind(ast: AstNode, scope: Scope, statement: boolean): Node {
  const lhs = ast.lhs as AstNode;
  if (lhs.type !== 'variable') throw new Unsupported('a binding to something else than a variable');
  const name = String(lhs.value);
  const rhs = ast.rhs!;
  if (rhs.type === 'lambda' && !rhs.thunk) {
    if (!statement || scope.inLambda) throw new Unsupported('a function that is not bound by := as a statement');
    checkProperties(rhs);
    const params = (rhs.arguments ?? []).map((a) => {
      if (a.type !== 'variable') throw new Unsupported('a function parameter that is not a variable');
      return String(a.value);
    });
    const inner: Scope = { ...scope, inLambda: true };
    const compiled = translate(rhs.body!, inner, false, true);
    return (input, env) => {
      const fn = new Lambda(params, compiled, env, input);
      env.bind(name, fn);
      return fn;
    };
  }
  const value = translate(rhs, scope);
  return (input, env) => {
    const v = value(input, env);
    env.bind(name, v);
    return v;
  };
}

/** `$f(args)`: the mapping's own function, one of our helpers, or a supported built-in. */
function translateCall(ast: AstNode, scope: Scope): Node {
  checkProperties(ast);
  const proc = ast.procedure!;
  if (proc.type !== 'variable') throw new Unsupported('a call of something else than a named function');
  const name = String(proc.value);
  const args = (ast.arguments ?? []).map((a) => translate(a, scope));
  if (scope.bound.has(name)) {
    return (input, env) => {
      const fn = env.lookup(name);
      if (!(fn instanceof Lambda)) return bail(`$${name} is not a function of the mapping here`);
      // Only calls from outside any function: no recursion, so no runaway (MAPPING_MAX_DEPTH).
      if (env.inLambda) return bail(`$${name} called from a function`);
      const values = args.map((a) => a(input, env));
      if (values.some(isJsonataFunction)) return bail('an argument JSONata takes for a function');
      const frame = new Frame(fn.env, true);
      for (let i = 0; i < fn.params.length; i++) frame.bind(fn.params[i]!, values[i]);
      return fn.body(fn.input, frame);
    };
  }
  const builtin: Builtin | undefined = Object.hasOwn(HELPERS, name) ? helperBuiltin(name, HELPERS[name]!) : JSONATA_FUNCTION_NAMES.has(name) ? BUILTINS[name] : undefined;
  if (!builtin) throw new Unsupported(`the function $${name}`);
  if (!builtin.arities.includes(args.length)) throw new Unsupported(`$${name} with ${args.length} arguments`);
  const { max } = scope;
  return (input, env) => {
    const values = new Array<unknown>(args.length);
    for (let i = 0; i < args.length; i++) {
      values[i] = args[i]!(input, env);
      // JSONata wraps an argument that looks like one of its functions (`_jsonata_lambda` in the data).
      if (isJsonataFunction(values[i])) bail('an argument JSONata takes for a function');
    }
    return builtin.call(values, max);
  };
}
