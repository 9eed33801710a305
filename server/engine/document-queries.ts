/**
 * Queries over other documents: `extract: { n: { query: count, where: { correspondent: "{{ doc.correspondent }}" } } }`.
 * The engine says what it wants to know as a QueryQuestion in names; an injected QuerySource answers it (the dms
 * through the run layer, or a rule test's `documents`). The engine never waits: a question without an answer ends
 * the evaluation with `pendingQuery`, and the caller evaluates again once it has the answer. So evaluation stays
 * synchronous and pure, in worker threads too (the worker returns the question, the main thread asks the dms).
 */
import type { CustomFieldValue, QueryKind, Scalar } from './model.js';
import { QUERY_KIND_NAMES, type QUERY_WHERE_FIELDS } from './rule-schema.js';
import type { CompiledTemplate } from './templates.js';

/** What a query reads from the matching documents. */
export const QUERY_KINDS = QUERY_KIND_NAMES;

export const QUERY_OPERATORS = [
  'equals',
  'in',
  'contains',
  'starts_with',
  'ends_with',
  'gt',
  'gte',
  'lt',
  'lte',
  'exists',
  'any',
  'all',
  'none',
] as const;
export type QueryOperator = (typeof QUERY_OPERATORS)[number];

const COMPARE = ['gt', 'gte', 'lt', 'lte'] as const;
/** The fields a query may test and the operators the dms's list filters answer for each (a superset is never sent). */
export const QUERY_FIELDS: Record<(typeof QUERY_WHERE_FIELDS)[number], readonly QueryOperator[]> = {
  title: ['equals', 'contains', 'starts_with', 'ends_with'],
  content: ['contains'],
  correspondent: ['equals', 'in'],
  document_type: ['equals', 'in'],
  storage_path: ['equals', 'in'],
  tags: ['any', 'all', 'none'],
  archive_serial_number: ['equals', ...COMPARE, 'exists'],
  created: ['equals', ...COMPARE],
  added: COMPARE,
};
export const QUERY_CUSTOM_FIELD_OPERATORS: readonly QueryOperator[] = [
  'equals',
  'in',
  'contains',
  'starts_with',
  'ends_with',
  ...COMPARE,
  'exists',
];

/** At most this many matching documents are read per query (`ids` lists at most these; `count` is the dms's total). */
export const MAX_QUERY_RESULTS = 25;

/** One test of a question, values rendered: names for relations and tags, ISO dates, numbers for the ASN. */
export interface QueryFilter {
  field: string;
  op: QueryOperator;
  value: Scalar | Scalar[];
}

/** What the engine asks: documents matching every filter, sorted, the asking document left out. */
export interface QueryQuestion {
  where: QueryFilter[];
  /** `created` (ties by id) for count/ids/first/last; the field read for max/min, whose documents must have it. */
  order: { field: string; descending: boolean; present: boolean };
  /** The document asking: never among the answers ("other documents"). */
  exclude: number;
}

export interface QueryAnswerDocument {
  id: number;
  title: string;
  /** The value of the question's order field. */
  value: CustomFieldValue;
}

export type QueryAnswer =
  | {
      /** Matching documents besides the asking one. */
      total: number;
      /** The first ones in the question's order, at most MAX_QUERY_RESULTS. */
      documents: QueryAnswerDocument[];
      /** Answered from the run's cache, without asking the dms again. */
      cached?: boolean;
      /** Why nothing was asked, e.g. a name the dms does not have. */
      note?: string;
    }
  | { error: string };

/** Answers questions it can answer now; undefined means "not yet" (the evaluation then ends with `pendingQuery`). */
export interface QuerySource {
  answer(question: QueryQuestion): QueryAnswer | undefined;
}

/** The key of a question, for answers sent along with a document (to a worker, between evaluation rounds). */
export function questionKey(q: QueryQuestion): string {
  return JSON.stringify([q.where, q.order, q.exclude]);
}

/** Answers from a map of earlier answers by question key (what a run collected so far). */
export function answersSource(answers: Readonly<Record<string, QueryAnswer>>): QuerySource {
  return { answer: (q) => answers[questionKey(q)] };
}

/** Thrown through the evaluation when a question has no answer yet. */
export class QueryPending extends Error {
  constructor(readonly question: QueryQuestion) {
    super('a query over other documents is waiting for its answer');
    this.name = 'QueryPending';
  }
}

export interface CompiledFilter {
  field: string;
  op: QueryOperator;
  /** Literal scalars or templates; a list for in/any/all/none. */
  values: Array<Scalar | CompiledTemplate>;
  list: boolean;
}

export interface CompiledQuery {
  kind: QueryKind;
  /** max/min: the field read. */
  field: string | null;
  where: CompiledFilter[];
  /** The free names its where templates read (so a missing extracted value means "no value", not an error). */
  globals: string[];
}

export function isTemplateValue(v: Scalar | CompiledTemplate): v is CompiledTemplate {
  return typeof v === 'object' && v !== null;
}
