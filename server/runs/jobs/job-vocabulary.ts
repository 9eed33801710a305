import type { DmsClient, DmsVocabulary } from '../../dms/types.js';
import { createVocabularyIndex } from '../../dms/vocabulary-index.js';
import { findUnknownNames, type LoadedRule } from '../../rules/rules.js';
import { needsPrincipals } from '../pipeline/rule-permissions.js';

// Names a read since the job started did not know either, per vocabulary copy: a rule that names something the
// dms does not have (yet) asks for the lists once, not at every job while that copy is cached.
const unresolved = new WeakMap<DmsVocabulary, Set<string>>();

const unknownIn = (rule: LoadedRule, vocabulary: DmsVocabulary): string[] =>
  findUnknownNames([rule.definition], createVocabularyIndex(vocabulary)).map((p) => JSON.stringify(p.path));

/**
 * The vocabulary a job's documents are evaluated with: the client's copy while it is younger than its
 * time-to-live (60 s, as for webhook runs; the service reads it at start), else read now. When the rule names
 * something that copy does not know (a tag a person created a second ago), the lists are read again, unless the
 * copy was itself asked for after the job started. Documents that name ids the copy lacks refresh it themselves
 * (`documentContext`). Every page's planning awaits this, so no document is evaluated with an older copy.
 */
export async function jobVocabulary(dms: DmsClient, rule: LoadedRule, startedAt: number): Promise<DmsVocabulary> {
  const principals = needsPrincipals([rule]);
  const known = await dms.vocabulary({ principals });
  const memo = unresolved.get(known);
  if (unknownIn(rule, known).every((name) => memo?.has(name))) return known;
  const fresh = await dms.vocabulary({ principals, fetchedSince: startedAt });
  const still = unknownIn(rule, fresh);
  if (still.length > 0) unresolved.set(fresh, new Set(still));
  return fresh;
}
