import type { CustomFieldDataType } from '../dms/types.js';
import type { Evaluation, RuleDefinition, RuleDocument, RunTrigger } from '../engine/index.js';
import type { NamedTagNode } from './named-tag-tree.js';

/** One rule as the worker gets it: the definition it compiles once, keyed by `key`. */
export interface WireRule {
  key: string;
  definition: RuleDefinition;
  file: string;
  vars: Record<string, unknown>;
}

export interface EvalItem {
  document: RuleDocument;
  rules: WireRule[];
  trigger: RunTrigger;
  now: number;
  customFieldTypes: Record<string, CustomFieldDataType>;
  /** Key of the dms's tag list in the batch's `tagTrees`. */
  tagTree: string;
}

/** The engine's evaluation without the final document (the planner needs only the changes). */
export type DocumentEvaluation = Omit<Evaluation, 'document'>;

export interface EvalBatch {
  items: EvalItem[];
  /** The dms's tag lists the items use, once per batch (documents share one vocabulary snapshot). */
  tagTrees: Record<string, NamedTagNode[]>;
}

/** One answer per item, in order: its evaluation, or why the engine threw. */
export type EvalAnswer = { index: number; evaluation: DocumentEvaluation } | { index: number; error: string };

/** Slots of the progress array a worker shares with the pool's watchdog. */
export const PROGRESS = { item: 0, rule: 1, startedAt: 2, size: 3 } as const;
