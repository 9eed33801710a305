import type { CustomFieldDataType } from '../dms/types.js';
import type { Evaluation, RuleDefinition, RuleDocument, RunTrigger } from '../engine/engine.js';
import type { NamedTagNode } from './named-tag-tree.js';
import type { QueryAnswer } from '../engine/document-queries.js';

/** One rule as the worker gets it: the definition it compiles once per key. */
export interface WireRule {
  definition: RuleDefinition;
  file: string;
  vars: Record<string, unknown>;
}

export interface EvalItem {
  /** Its content is empty here: the text travels in the message's `contents`, at the item's index. */
  document: RuleDocument;
  /** Keys of the batch's `rules`, in the order they run. */
  rules: string[];
  trigger: RunTrigger;
  now: number;
  /** Key of the custom field types in the batch's `fieldTypes`. */
  fieldTypes: string;
  /** Key of the dms's tag list in the batch's `tagTrees`. */
  tagTree: string;
  /** Answers to the document's queries over other documents so far (the main thread asks the dms between rounds). */
  queryAnswers?: Record<string, QueryAnswer>;
}

/** The engine's evaluation without the final document (the planner needs only the changes). */
export type DocumentEvaluation = Omit<Evaluation, 'document'>;

/** What the items share is sent once per batch, by key: rules, and the vocabulary snapshot's field types and tags. */
export interface EvalBatch {
  items: EvalItem[];
  rules: Record<string, WireRule>;
  fieldTypes: Record<string, Record<string, CustomFieldDataType>>;
  /** The dms's tag lists the items use (documents share one vocabulary snapshot). */
  tagTrees: Record<string, NamedTagNode[]>;
}

/**
 * What the pool posts: the batch as JSON without the documents' text, and the text beside it, one string per
 * item. Structured cloning copies a string as it is (one memory copy each way), where JSON would escape and
 * scan every character of 2–20 KB of OCR text twice, once on each thread.
 */
export interface EvalMessage {
  batch: string;
  contents: string[];
}

/** One answer per item, in order: its evaluation, or why the engine threw. */
export type EvalAnswer = { index: number; evaluation: DocumentEvaluation } | { index: number; error: string };

/** Slots of the progress array a worker shares with the pool's watchdog. */
export const PROGRESS = { item: 0, rule: 1, startedAt: 2, size: 3 } as const;
