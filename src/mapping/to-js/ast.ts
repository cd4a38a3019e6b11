/** The shape of a node of `jsonata(source).ast()` (jsonata 2.x), as far as the translator reads it. */
export interface AstNode {
  type: string;
  value?: unknown;
  position?: number;
  lhs?: AstNode & AstNode[][];
  rhs?: AstNode;
  expression?: AstNode;
  steps?: AstNode[];
  stages?: AstNode[];
  predicate?: AstNode[];
  expressions?: AstNode[];
  procedure?: AstNode;
  arguments?: AstNode[];
  condition?: AstNode;
  then?: AstNode;
  else?: AstNode;
  body?: AstNode;
  expr?: AstNode;
  signature?: unknown;
  thunk?: boolean;
  keepArray?: boolean;
  keepSingletonArray?: boolean;
  consarray?: boolean;
}

/** Every property of a node the translator models; a node with another one runs interpreted. */
export const MODELLED_PROPERTIES = new Set([
  'type', 'value', 'position', 'lhs', 'rhs', 'expression', 'steps', 'stages', 'predicate', 'expressions', 'procedure', 'arguments',
  'condition', 'then', 'else', 'body', 'expr', 'signature', 'thunk', 'keepArray', 'keepSingletonArray', 'consarray',
]);

/** The names jsonata 2.x binds to its built-in functions (its static frame), and `$now`, `$millis`. */
export const JSONATA_FUNCTION_NAMES = new Set(
  ('sum count max min average string substring substringBefore substringAfter lowercase uppercase length trim pad match ' +
    'contains replace split join formatNumber formatBase formatInteger parseInteger number floor ceil round abs sqrt power ' +
    'random boolean not map zip filter single reduce sift keys lookup append exists spread merge reverse each error assert ' +
    'type sort shuffle distinct encodeUrlComponent encodeUrl decodeUrlComponent decodeUrl eval toMillis fromMillis clone now millis').split(' '),
);
