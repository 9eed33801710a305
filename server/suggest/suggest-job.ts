import { compileRule, type RuleDefinition, type RuleDocument } from '../engine/engine.js';
import { createVocabularyIndex, type VocabularyIndex, type VocabularyKind } from '../dms/vocabulary-index.js';
import type { DmsClient } from '../dms/types.js';
import type { EventStore } from '../history/event-store.js';
import type { LoadedRule } from '../rules/rules.js';
import type { ArchiveTextCache, CacheFigures } from './archive-cache.js';
import { readArchive } from './archive-read.js';
import { buildDataset } from './candidates.js';
import { FeatureIndex } from './feature-index.js';
import { judgeCandidates, type JudgeDocument } from './judge-candidates.js';
import { learnRules, type LearnedRule } from './learner.js';
import { describeTarget, hasTarget, ruleIdFor, targetAction, type SuggestRequest } from './target.js';
import { ruleDefinition } from './rule-yaml.js';
import { validatedRuleFile } from './validate-suggestion.js';
import type { SuggestionCandidate } from './suggestion-types.js';
import { SuggestionError } from './suggestion-error.js';
import { tokenUser, visibility, type SuggestionVisibility } from './visibility.js';

export interface SuggestJobDeps {
  dms: DmsClient;
  events: EventStore;
  /** The archive's texts between requests (one per service). */
  cache: ArchiveTextCache;
  /** Whether a loaded rule already has this id (a suggestion gets one no file uses). */
  ruleIdTaken(id: string): boolean;
  now: () => Date;
}

/** Fewer labelled documents than this give no rule worth trusting. */
export const MIN_LABELLED = 5;

const KIND_OF: Record<string, VocabularyKind> = {
  tag: 'tags',
  correspondent: 'correspondents',
  document_type: 'document_types',
  storage_path: 'storage_paths',
  custom_field: 'custom_fields',
};

/**
 * Reads the archive once (texts the cache holds unchanged are not read again: archive-read.ts), learns from the
 * word ids of each document, then judges each candidate rule with the engine a job uses over the same documents.
 * Throws SuggestionError with what a person can do.
 */
export async function runSuggestion(
  deps: SuggestJobDeps,
  eventId: number,
  request: SuggestRequest,
  signal: AbortSignal,
): Promise<{
  candidates: SuggestionCandidate[];
  labelled: number;
  documents: number;
  visibility: SuggestionVisibility;
  cache: CacheFigures;
}> {
  const { dms, events } = deps;
  const [vocabulary, user] = await Promise.all([dms.vocabulary({ refresh: true }), tokenUser(dms)]);
  const index = createVocabularyIndex(vocabulary);
  checkTargetExists(index, request);
  const examples = new Set(request.examples);
  const labelled = (doc: RuleDocument) => hasTarget(doc, request.target) || examples.has(doc.id);

  const cache = deps.cache;
  cache.begin(dms.url);
  const features = new FeatureIndex(cache.dictionary);
  const judging: JudgeDocument[] = [];
  let listed = 0;
  const read = readArchive({
    dms,
    vocabulary: index,
    cache,
    signal,
    onTotal: (total) => {
      listed = total;
      events.update(eventId, { total: total * 2 });
    },
  });
  for await (const { doc, text } of read) {
    const positive = labelled(doc);
    features.addRead({ ...doc, positive }, text);
    judging.push({
      id: doc.id,
      title: doc.title,
      modified: doc.modified,
      correspondent: doc.correspondent,
      document_type: doc.document_type,
      labelled: positive,
    });
    if (judging.length % 200 === 0) events.update(eventId, { processed: judging.length });
  }
  cache.retain(new Set(features.ids));
  cache.settle();
  const positives = features.positives;
  // Told with every error too: a label may look rare, or inseparable, only because the token sees part of the archive.
  const unseen = visibility(user, listed, features.size, features.size)
    .warnings.map((w) => ` ${w}`)
    .join('');
  if (positives < MIN_LABELLED)
    throw new SuggestionError(
      `Only ${positives} of ${features.size} documents carry the ${describeTarget(request.target)}; label a few more ` +
        `(at least ${MIN_LABELLED}), or give the ids of documents that should match as "examples".${unseen}`,
    );
  const exclude = new Set<'correspondent' | 'document_type'>();
  if (request.target.kind === 'correspondent' || request.target.kind === 'document_type')
    exclude.add(request.target.kind);
  const data = buildDataset(features, { exclude });
  const learned = await learnRules(data, request.minPrecision, (train) => buildDataset(features, { exclude, train }));
  if (learned.rules.length === 0) {
    const best = learned.best;
    throw new SuggestionError(
      best
        ? `No rule separates the ${describeTarget(request.target)} at precision ${request.minPrecision}: best found: precision ` +
            `${best.precision.toFixed(2)} (${best.label}) — these documents look alike: ` +
            best.lookAlike.map((d) => `#${d.id} "${d.title}"`).join(', ') +
            unseen
        : `No condition is more frequent in the ${positives} documents with the ${describeTarget(request.target)} than in the others.${unseen}`,
    );
  }

  const fieldTypes = Object.fromEntries(vocabulary.custom_fields.map((f) => [f.name, f.data_type]));
  const { tallies, judged } = await judgeCandidates(
    learned.rules.map((rule) => ({
      rule: loadedRule(deps, request, rule),
      clauses: rule.clauses,
      terms: termsOf(rule),
    })),
    judging,
    {
      dms,
      vocabulary: index,
      cache,
      signal,
      request: { trigger: 'job', now: deps.now(), customFieldTypes: fieldTypes },
      action: targetAction(request.target),
      onJudged: (n) => events.update(eventId, { processed: judging.length + n }),
    },
  );

  const candidates: SuggestionCandidate[] = [];
  for (const [i, tally] of tallies.entries()) {
    if (tally.precision < request.minPrecision) continue;
    const rule = learned.rules[i];
    const yaml = await validatedRuleFile({
      id: tally.rule.id,
      description: tally.rule.description ?? '',
      clauses: rule.clauses,
      action: targetAction(request.target),
      matching: tally.matching,
      notMatching: tally.notMatching,
      now: deps.now(),
    });
    if (!yaml) continue;
    candidates.push({
      yaml,
      rule_id: tally.rule.id,
      variant: rule.variant,
      precision: round(tally.precision),
      recall: round(tally.recall),
      matched: tally.tp + tally.fp,
      labelled: tally.tp + tally.fn,
      holdout: {
        precision: round(rule.holdout.precision),
        recall: round(rule.holdout.recall),
        method: rule.holdout.method,
      },
      would_add: tally.wouldAdd,
      would_add_count: tally.fp,
      would_miss: tally.wouldMiss,
      would_miss_count: tally.fn,
    });
  }
  if (candidates.length === 0) {
    const best = [...tallies].sort((a, b) => b.precision - a.precision)[0];
    throw new SuggestionError(
      `No rule separates the ${describeTarget(request.target)} at precision ${request.minPrecision}: best found: precision ` +
        `${best.precision.toFixed(2)} over the whole archive — these documents look alike: ` +
        best.wouldAdd
          .slice(0, 5)
          .map((d) => `#${d.id} "${d.title}"`)
          .join(', ') +
        unseen,
    );
  }
  candidates.sort((a, b) => b.precision - a.precision || a.recall - b.recall || a.rule_id.localeCompare(b.rule_id));
  return {
    candidates: candidates.slice(0, 3),
    labelled: positives,
    documents: features.size,
    visibility: visibility(user, listed, features.size, judged),
    cache: cache.figures(),
  };
}

function checkTargetExists(index: VocabularyIndex, request: SuggestRequest): void {
  const { target } = request;
  const kind = KIND_OF[target.kind];
  const known = target.kind === 'custom_field' ? index.field(target.name) : index.idOf(kind, target.name);
  if (known !== undefined || request.examples.length > 0) return;
  const names = index.names(kind).slice(0, 12);
  throw new SuggestionError(
    `The dms has no ${target.kind.replace('_', ' ')} named "${target.name}"` +
      (names.length ? `; it has ${names.map((n) => `"${n}"`).join(', ')}` : '') +
      '. Pick one of these, or give "examples" for a new one.',
  );
}

function loadedRule(deps: SuggestJobDeps, request: SuggestRequest, rule: LearnedRule): LoadedRule {
  let id = ruleIdFor(request.target, rule.variant);
  for (let n = 2; deps.ruleIdTaken(id); n++) id = `${ruleIdFor(request.target, rule.variant)}-${n}`;
  const description = `Suggested for the ${describeTarget(request.target)} from the documents labelled so far (${rule.variant})`;
  const definition = ruleDefinition({
    id,
    description,
    clauses: rule.clauses,
    action: targetAction(request.target),
  }) as unknown as RuleDefinition;
  return {
    id,
    description,
    file: '(suggestion)',
    package: null,
    definition,
    compiled: compileRule(definition),
    vars: {},
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

const termsOf = (rule: LearnedRule): string[] =>
  rule.clauses
    .flat()
    .filter((l) => !['correspondent', 'document_type'].includes(l.feature.kind))
    .flatMap((l) => l.feature.values.map((v) => v.toLowerCase()));
