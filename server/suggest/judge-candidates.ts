import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  compileRule,
  emptyDocument,
  evaluateRules,
  type EvaluateInput,
  type RuleDefinition,
  type RuleDocument,
  type RuleInput,
} from '../engine/engine.js';
import { capContent } from '../eval/content-budget.js';
import type { VocabularyIndex } from '../dms/vocabulary-index.js';
import type { DmsClient } from '../dms/types.js';
import type { LoadedRule } from '../rules/rules.js';
import { toRuleDocument } from '../runs/documents/rule-document.js';
import type { ArchiveTextCache } from './archive-cache.js';
import { CandidateTally } from './evaluate-candidates.js';
import type { LearnedLiteral } from './learner.js';
import { conditionOf } from './rule-yaml.js';
import { SuggestionError } from './suggestion-error.js';

/** What judging needs of a document besides its text (kept for every document of the request). */
export interface JudgeDocument {
  id: number;
  title: string;
  modified: string | null;
  correspondent: string | null;
  document_type: string | null;
  labelled: boolean;
}

export interface Candidate {
  rule: LoadedRule;
  clauses: readonly LearnedLiteral[][];
  terms: readonly string[];
}

export interface JudgeOptions {
  dms: DmsClient;
  vocabulary: VocabularyIndex;
  cache: ArchiveTextCache;
  signal: AbortSignal;
  /** The rest of the engine's input: trigger, clock, field types. */
  request: Pick<EvaluateInput, 'trigger' | 'now' | 'customFieldTypes'>;
  /** An action for the probe rules (the target's). */
  action: Record<string, unknown>;
  onJudged(judged: number): void;
}

/** Documents whose text is not cached are read again this many at a time (one request). */
const READ_BATCH = 100;
/** Documents judged between two turns of the event loop, so the service answers meanwhile. */
const TURN = 25;

/**
 * Each candidate's verdict on every document, from the engine a job uses: each distinct condition of the
 * candidates is one rule evaluated once per document (the candidates share most of them, and `fuzzy` costs
 * most), and a candidate holds when any of its clauses has all its conditions hold (negated ones not). On the
 * main thread: the conditions are the learner's own (escaped words, no user regex), so they need no time budget,
 * and the text need not be copied to a worker and the verdicts back.
 */
export async function judgeCandidates(
  candidates: readonly Candidate[],
  documents: readonly JudgeDocument[],
  options: JudgeOptions,
): Promise<{ tallies: CandidateTally[]; judged: number }> {
  const probes: RuleInput[] = [];
  const probeOf = new Map<string, number>();
  const literalProbe = (literal: LearnedLiteral): number => {
    const condition = conditionOf({ feature: literal.feature, negated: false });
    const key = JSON.stringify(condition);
    let index = probeOf.get(key);
    if (index === undefined) {
      index = probes.push(probeRule(`suggestion-condition-${probes.length + 1}`, condition, options.action)) - 1;
      probeOf.set(key, index);
    }
    return index;
  };
  const plans = candidates.map((c) =>
    c.clauses.map((clause) => clause.map((l) => [literalProbe(l), l.negated] as const)),
  );
  const tallies = candidates.map((c) => new CandidateTally(c.rule, c.terms));
  let judged = 0;
  for (let start = 0; start < documents.length; start += READ_BATCH) {
    const batch = documents.slice(start, start + READ_BATCH);
    const texts = await textsOf(batch, options);
    for (const [i, doc] of batch.entries()) {
      const content = texts.get(doc.id);
      if (content === undefined) continue;
      const document: RuleDocument = {
        ...emptyDocument(),
        id: doc.id,
        title: doc.title,
        content,
        correspondent: doc.correspondent,
        document_type: doc.document_type,
      };
      // The engine's own call, as a job's evaluation makes it (eval-pool.ts); no tag tree: a probe's verdict does
      // not depend on how its tag action would end.
      const evaluation = evaluateRules({ ...options.request, document, rules: probes });
      const holds = evaluation.results.map((r) => r.status === 'matched');
      const failed = evaluation.results.map((r) => r.status === 'error');
      plans.forEach((clauses, c) => {
        const matched = clauses.some((clause) =>
          clause.every(([probe, negated]) => !failed[probe] && holds[probe] !== negated),
        );
        tallies[c].add(document, doc.labelled, matched);
      });
      judged++;
      if (i % TURN === TURN - 1) await nextTurn();
    }
    options.onJudged(judged);
    if (options.signal.aborted) throw new SuggestionError('Cancelled on request.');
  }
  return { tallies, judged };
}

/** The batch's texts: from the cache, the others read again (documents gone meanwhile are absent). */
async function textsOf(batch: readonly JudgeDocument[], options: JudgeOptions): Promise<Map<number, string>> {
  const texts = new Map<number, string>();
  const missing: number[] = [];
  for (const doc of batch) {
    const content = options.cache.content(doc.id, doc.modified);
    if (content === undefined) missing.push(doc.id);
    else texts.set(doc.id, content);
  }
  if (missing.length > 0)
    for (const dmsDoc of await options.dms.getDocuments(missing))
      texts.set(dmsDoc.id, capContent(toRuleDocument(dmsDoc, options.vocabulary)).document.content);
  return texts;
}

function probeRule(id: string, condition: Record<string, unknown>, action: Record<string, unknown>): RuleInput {
  const definition = { id, on: ['added', 'manual'], when: condition, actions: [action] } as unknown as RuleDefinition;
  return { file: '(suggestion)', compiled: compileRule(definition), vars: {} };
}
