import { evaluateRules, type Evaluation, type RunTrigger } from '../engine/index.js';
import type { TagHierarchy } from '../engine/model.js';
import { createTagTree } from '../dms/tag-hierarchy.js';
import { createVocabularyIndex, type VocabularyIndex } from '../dms/vocabulary-index.js';
import type { CustomFieldDataType, DmsClient, DmsDocument } from '../dms/types.js';
import type { LoadedRule } from '../rules/index.js';
import { planDocument, type DocumentPlan } from './plan-changes.js';
import { hasUnknownIds, toRuleDocument } from './rule-document.js';

/** Everything evaluation needs about one document: its rule view and the vocabulary to map names back. */
export interface DocumentContext {
  index: VocabularyIndex;
  customFieldTypes: Record<string, CustomFieldDataType>;
}

/** Vocabulary for this document; refetched once when the document uses an id the cached copy lacks. */
export async function documentContext(dms: DmsClient, doc: DmsDocument): Promise<DocumentContext> {
  let index = createVocabularyIndex(await dms.vocabulary());
  if (hasUnknownIds(doc, index)) index = createVocabularyIndex(await dms.vocabulary({ refresh: true }));
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
