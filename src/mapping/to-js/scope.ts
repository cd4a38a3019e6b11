import type { AstNode } from './ast.ts';
import type { Node } from './frame.ts';

/** What translating a node needs to know of where it stands. */
export interface Scope {
  /** maxSequence of the limits (0: none). */
  max: number;
  /** Names the mapping binds (./analysis.ts). */
  bound: ReadonlySet<string>;
  /** Translating the body of one of the mapping's functions. */
  inLambda: boolean;
}

/** ./translate.ts's `translate`, passed to the constructors (not imported) to keep the modules acyclic. */
export type Translate = (ast: AstNode, scope: Scope) => Node;
