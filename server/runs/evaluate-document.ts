import { evaluateRules, type Evaluation, type RunTrigger } from '../engine/index.js';
import type { TagHierarchy } from '../engine/model.js';
import { createTagTree } from '../dms/tag-hierarchy.js';
import { createVocabularyIndex, type VocabularyIndex } from '../dms/vocabulary-index.js';
import type { CustomFieldDataType, DmsClient, DmsDocument, DmsVocabulary } from '../dms/types.js';
import type { LoadedRule } from '../rules/index.js';
import { planDocument, type DocumentPlan } from './plan-changes.js';
import { toRuleDocument, unknownRefs } from './rule-document.js';

/** Everything evaluation needs about one document: its rule view and the vocabulary to map names back. */
export interface DocumentContext {
  index: VocabularyIndex;
  customFieldTypes: Record<string, CustomFieldDataType>;
}

// Refs a refresh did not resolve, per vocabulary snapshot: objects the token may not see (owned by someone
// else). Without this memo every document that uses one would refetch the whole vocabulary.
const unresolved = new WeakMap<DmsVocabulary, Set<string>>();

/** Vocabulary for this document; refetched once when the document uses an id the cached copy lacks. */
export async function documentContext(dms: DmsClient, doc: DmsDocument): Promise<DocumentContext> {
  const cached = await dms.vocabulary();
  let index = createVocabularyIndex(cached);
  const seen = unresolved.get(cached);
  if (unknownRefs(doc, index).some((ref) => !seen?.has(ref))) {
    const fresh = await dms.vocabulary({ refresh: true });
    index = createVocabularyIndex(fresh);
    const still = unknownRefs(doc, index);
    if (still.length > 0) unresolved.set(fresh, new Set([...(unresolved.get(fresh) ?? []), ...(seen ?? []), ...still]));
  }
  const customFieldTypes: Record<string, CustomFieldDataType> = {};
  for (const field of index.vocabulary.custom_fields) customFieldTypes[field.name] = field.data_type;
  return { index, customFieldTypes };
}

/** The dms's tag tree by name, for the engine (one tree module serves the simulator, the planner and this). */
export function tagHierarchyOf(index: VocabularyIndex): TagHierarchy {
  const tree = createTagTree(index.vocabulary.tags);
  const names = (ids: number[]) => ids.map((id) => index.nameOf('tags', id) ?? `#${id}`);
  const idOf = (name: string) => index.idOf('tags', name);
  return {
    ancestors: (name) => (idOf(name) === undefined ? [] : names(tree.ancestors(idOf(name) as number))),
    descendants: (name) => (idOf(name) === undefined ? [] : names(tree.descendants(idOf(name) as number))),
  };
}

/** The engine over the loaded rules, then the merged plan. Pure apart from the clock. */
export function evaluateAndPlan(doc: DmsDocument, context: DocumentContext, rules: LoadedRule[], trigger: RunTrigger, now: Date): { evaluation: Evaluation; plan: DocumentPlan } {
  const evaluation = evaluateRules({
    document: toRuleDocument(doc, context.index),
    rules: rules.map((r) => ({ compiled: r.compiled, file: r.file, vars: r.vars })),
    trigger,
    now,
    customFieldTypes: context.customFieldTypes,
    tagHierarchy: tagHierarchyOf(context.index),
  });
  const plan = planDocument(doc, evaluation.changes, evaluation.createMissing, context.index);
  return { evaluation, plan };
}
