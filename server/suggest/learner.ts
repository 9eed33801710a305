// Learning runs on the service's main thread: each fold's candidates and each clause search is one step, with the
// event loop's turn between them, so health and other requests are answered while a large archive is learnt.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { and, andNot, bitsWhere, count, countAnd, hasBit, type Bits } from './bitset.js';
import type { Dataset, Feature } from './candidates.js';
import { learnClauses, mixId, ruleCover, type Clause } from './ripper.js';

/** A condition of a learned rule, by its feature. */
export interface LearnedLiteral {
  feature: Feature;
  negated: boolean;
}

export interface Figures {
  precision: number;
  recall: number;
}

export interface LearnedRule {
  /** `precise`: a higher floor; `balanced`: the requested floor; `broad`: single conditions only. */
  variant: 'precise' | 'balanced' | 'broad';
  clauses: LearnedLiteral[][];
  /** On documents the learner did not see: 3-fold cross-validation, pooled over the folds. */
  holdout: Figures & { method: string };
}

export interface LearnOutcome {
  rules: LearnedRule[];
  /** When nothing reached the floor: the best clause's precision and a few documents it matches without the label. */
  best: { precision: number; label: string; lookAlike: Array<{ id: number; title: string }> } | null;
}

const FOLDS = 3;

export const HOLDOUT_METHOD =
  '3-fold cross-validation (documents split by id; each third judged by a rule learned, candidate conditions included, on the other two)';

/**
 * The candidate conditions chosen by the training documents only (`buildDataset` with `train`), over the same
 * documents in the same positions as the whole archive's dataset.
 */
export type FoldDataset = (train: (d: number) => boolean) => Dataset;

/**
 * Learns up to three rules, from the most precise to the broadest; the same dataset gives the same rules.
 * `foldDataset` gives each cross-validation fold its own candidates, so held-out documents choose nothing.
 */
export async function learnRules(data: Dataset, minPrecision: number, foldDataset: FoldDataset): Promise<LearnOutcome> {
  const folds: Array<{ data: Dataset; test: Bits; train: Bits }> = [];
  const foldsOnce = async () => {
    for (let fold = folds.length; fold < FOLDS; fold++) {
      await nextTurn();
      const inTest = (d: number) => mixId(data.ids[d]) % FOLDS === fold;
      const test = bitsWhere(data.n, inTest);
      folds.push({
        data: foldDataset((d) => !inTest(d)),
        test,
        train: andNot(
          bitsWhere(data.n, () => true),
          test,
        ),
      });
    }
    return folds;
  };
  const all = bitsWhere(data.n, () => true);
  const variants: Array<{ variant: LearnedRule['variant']; floor: number; maxLiterals: number }> = [
    { variant: 'precise', floor: Math.min(0.995, minPrecision + (1 - minPrecision) / 2), maxLiterals: 3 },
    { variant: 'balanced', floor: minPrecision, maxLiterals: 3 },
    { variant: 'broad', floor: minPrecision, maxLiterals: 1 },
  ];
  const rules: LearnedRule[] = [];
  const seen = new Map<string, LearnedRule>();
  let best: LearnOutcome['best'] = null;
  // Once a rule failed on held-out documents, that figure is the honest best, not its training precision.
  let heldOut = false;
  for (const { variant, floor, maxLiterals } of variants) {
    const options = { minPrecision: floor, maxLiterals };
    await nextTurn();
    const learned = learnClauses(data, all, options);
    if (learned.best && !heldOut && (!best || learned.best.precision > best.precision))
      best = {
        precision: learned.best.precision,
        label: describeClause(data, learned.best.clause),
        lookAlike: lookAlike(data, learned.best.clause),
      };
    if (learned.clauses.length === 0) continue;
    const key = JSON.stringify(canonical(learned.clauses));
    const holdout = await crossValidate(await foldsOnce(), options);
    const same = seen.get(key);
    if (same) {
      // The same rule from a second floor: its held-out figure is the better estimate when it is higher.
      if (f1(holdout) > f1(same.holdout)) same.holdout = { ...holdout, method: HOLDOUT_METHOD };
      continue;
    }
    // A rule that fits the labels it saw and fails on the ones it did not is chance, not a rule.
    if (holdout.precision < minPrecision - 0.3) {
      if (!heldOut || (best && holdout.precision > best.precision))
        best = {
          precision: holdout.precision,
          label: `${describeClause(data, learned.clauses[0])}, on documents it did not see`,
          lookAlike: lookAlike(data, learned.clauses[0]),
        };
      heldOut = true;
      continue;
    }
    const rule: LearnedRule = {
      variant,
      clauses: learned.clauses.map((c) => c.map((l) => ({ feature: data.features[l.feature], negated: l.negated }))),
      holdout: { ...holdout, method: HOLDOUT_METHOD },
    };
    seen.set(key, rule);
    rules.push(rule);
  }
  return { rules, best: rules.length > 0 ? null : best };
}

async function crossValidate(
  folds: ReadonlyArray<{ data: Dataset; test: Bits; train: Bits }>,
  options: { minPrecision: number; maxLiterals: number },
): Promise<Figures> {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const { data, test, train } of folds) {
    await nextTurn();
    const cover = ruleCover(data, learnClauses(data, train, options).clauses);
    const testPos = and(test, data.positive);
    tp += countAnd(cover, testPos);
    fp += countAnd(cover, andNot(test, data.positive));
    fn += count(andNot(testPos, cover));
  }
  return { precision: tp + fp === 0 ? 0 : tp / (tp + fp), recall: tp + fn === 0 ? 0 : tp / (tp + fn) };
}

const canonical = (clauses: Clause[]) =>
  clauses.map((c) => c.map((l) => `${l.negated ? '!' : ''}${l.feature}`).sort()).sort();

function describeClause(data: Dataset, clause: Clause): string {
  return clause.map((l) => `${l.negated ? 'not ' : ''}${data.features[l.feature].label}`).join(' and ');
}

function lookAlike(data: Dataset, clause: Clause): Array<{ id: number; title: string }> {
  const cover = ruleCover(data, [clause]);
  const out: Array<{ id: number; title: string }> = [];
  // The unlabelled documents it matches; when it matches none, the labelled ones it misses resemble the rest.
  for (const bits of [andNot(cover, data.positive), andNot(data.positive, cover)])
    for (let d = 0; d < data.n && out.length < 5; d++)
      if (hasBit(bits, d)) out.push({ id: data.ids[d], title: data.titles[d] });
  return out;
}

const f1 = ({ precision, recall }: Figures): number =>
  precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
