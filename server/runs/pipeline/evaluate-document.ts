import type { RunTrigger } from '../../engine/engine.js';
import { capContent, withContentCut } from '../../eval/content-budget.js';
import type { DocumentEvaluation } from '../../eval/eval-protocol.js';
import type { Evaluator } from '../../eval/eval-pool.js';
import { createVocabularyIndex, type VocabularyIndex } from '../../dms/vocabulary-index.js';
import type { CustomFieldDataType, DmsClient, DmsDocument, DmsVocabulary } from '../../dms/types.js';
import type { LoadedRule } from '../../rules/rules.js';
import { planDocument, type DocumentPlan } from './plan-changes.js';
import { toRuleDocument, unknownRefs } from '../documents/rule-document.js';
import { needsPrincipals } from './rule-permissions.js';
import { questionKey, type QueryAnswer } from '../../engine/document-queries.js';
import { MAX_QUERIES_PER_DOCUMENT, type DocumentQueries } from '../queries/query-answers.js';
import { perObject } from '../../per-object.js';

/** Everything evaluation needs about one document: its rule view and the vocabulary to map names back. */
export interface DocumentContext {
  index: VocabularyIndex;
  customFieldTypes: Record<string, CustomFieldDataType>;
}

// The client hands out the same vocabulary object until it refetches: index it once, not per document.
const contextOf = perObject((vocabulary: DmsVocabulary): DocumentContext => {
  const customFieldTypes: Record<string, CustomFieldDataType> = {};
  for (const field of vocabulary.custom_fields) customFieldTypes[field.name] = field.data_type;
  return { index: createVocabularyIndex(vocabulary), customFieldTypes };
});

// Refs a refresh did not resolve, per vocabulary snapshot: objects the token may not see (owned by someone
// else). Without this memo every document that uses one would refetch the whole vocabulary.
const unresolved = new WeakMap<DmsVocabulary, Set<string>>();

/**
 * Vocabulary for this document; refetched once when the document uses an id the cached copy lacks. `rules`
 * decide whether users and groups are listed too (only rules that name owners or permissions need them).
 */
export async function documentContext(
  dms: DmsClient,
  doc: DmsDocument,
  rules: readonly LoadedRule[],
): Promise<DocumentContext> {
  const principals = needsPrincipals(rules);
  const cached = await dms.vocabulary({ principals });
  const context = contextOf(cached);
  const seen = unresolved.get(cached);
  if (!unknownRefs(doc, context.index).some((ref) => !seen?.has(ref))) return context;
  const fresh = await dms.vocabulary({ refresh: true, principals });
  const freshContext = contextOf(fresh);
  const still = unknownRefs(doc, freshContext.index);
  if (still.length > 0) unresolved.set(fresh, new Set([...(unresolved.get(fresh) ?? []), ...(seen ?? []), ...still]));
  return freshContext;
}

/**
 * The engine over the loaded rules (in the evaluation pool), then the merged plan. A rule's query over other
 * documents ends an evaluation round with the question; the dms answers it here (through `queries`, cached per
 * run) and the document is evaluated again with every answer so far, at most MAX_QUERIES_PER_DOCUMENT times.
 */
export async function evaluateAndPlan(
  evaluator: Evaluator,
  doc: DmsDocument,
  context: DocumentContext,
  rules: LoadedRule[],
  trigger: RunTrigger,
  now: Date,
  queries?: DocumentQueries,
): Promise<{ evaluation: DocumentEvaluation; plan: DocumentPlan }> {
  const { document, cutFrom } = capContent(toRuleDocument(doc, context.index));
  const queryAnswers: Record<string, QueryAnswer> = {};
  let asked = 0;
  let evaluation: DocumentEvaluation;
  for (;;) {
    evaluation = await evaluator.evaluate({
      document,
      rules,
      trigger,
      now,
      customFieldTypes: context.customFieldTypes,
      tags: context.index.vocabulary.tags,
      queryAnswers,
    });
    const question = evaluation.pendingQuery;
    if (!question) break;
    queryAnswers[questionKey(question)] = !queries
      ? { error: 'queries over other documents cannot be answered in this kind of run' }
      : ++asked > MAX_QUERIES_PER_DOCUMENT
        ? { error: `more than ${MAX_QUERIES_PER_DOCUMENT} queries for one document; the rules ask too many` }
        : await queries.answer(question, context.index, cutFrom === null ? document : undefined);
  }
  if (cutFrom !== null) evaluation.results = evaluation.results.map((r) => withContentCut(r, cutFrom));
  const plan = planDocument(doc, evaluation.changes, evaluation.createMissing, context.index);
  return { evaluation, plan };
}
