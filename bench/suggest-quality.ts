// The learner's quality, in process: holdout figures per label and the best single Paperless match pattern.
import { countAnd, count, or, and, type Bits } from '../server/suggest/bitset.js';
import { buildDataset, type Dataset } from '../server/suggest/candidates.js';
import { FeatureIndex, type LearnDocument } from '../server/suggest/feature-index.js';
import { learnRules } from '../server/suggest/learner.js';

export interface LabelFigures {
  label: string;
  labelled: number;
  holdoutPrecision: number;
  holdoutRecall: number;
  /** F1 of the suggested rule on held-out documents, and of the best any/all/literal pattern over the archive. */
  f1: number;
  paperlessF1: number;
  paperlessPattern: string;
  rule: string;
}

const f1 = (p: number, r: number): number => (p + r === 0 ? 0 : (2 * p * r) / (p + r));

/** The archive read once; each label relabels it (FeatureIndex.relabel) and learns that label's rules. */
export function indexOf(documents: Iterable<Omit<LearnDocument, 'positive'>>): FeatureIndex {
  const index = new FeatureIndex();
  for (const doc of documents) index.add({ ...doc, positive: false });
  return index;
}

export async function figuresFor(
  index: FeatureIndex,
  labels: ReadonlyArray<readonly string[]>,
  label: string,
  minPrecision = 0.95,
): Promise<LabelFigures> {
  index.relabel(labels.map((l) => l.includes(label)));
  const data = buildDataset(index, { exclude: new Set() });
  const learned = await learnRules(data, minPrecision, (train) => buildDataset(index, { exclude: new Set(), train }));
  // The candidate with the best held-out F1 (what a person would pick from the list).
  const rule = [...learned.rules].sort(
    (a, b) => f1(b.holdout.precision, b.holdout.recall) - f1(a.holdout.precision, a.holdout.recall),
  )[0];
  const paperless = bestPaperlessPattern(data);
  return {
    label,
    labelled: index.positives,
    holdoutPrecision: rule?.holdout.precision ?? 0,
    holdoutRecall: rule?.holdout.recall ?? 0,
    f1: rule ? f1(rule.holdout.precision, rule.holdout.recall) : 0,
    paperlessF1: paperless.f1,
    paperlessPattern: paperless.pattern,
    rule: rule
      ? rule.clauses.map((c) => c.map((l) => `${l.negated ? 'not ' : ''}${l.feature.label}`).join(' & ')).join(' | ')
      : `none (${learned.best ? `best ${learned.best.precision.toFixed(2)}: ${learned.best.label}` : 'no condition'})`,
  };
}

/**
 * Paperless's own matching for the label: "any" or "all" of the k best single words (k = 1..5) or one exact
 * phrase ("literal"), whichever has the best F1 over the whole archive (seen data: an upper bound for it).
 */
function bestPaperlessPattern(data: Dataset): { f1: number; pattern: string } {
  const words = data.features.map((f, i) => ({ f, i })).filter(({ f }) => f.kind === 'words' && f.values.length === 1);
  const phrases = data.features.map((f, i) => ({ f, i })).filter(({ f }) => f.kind === 'phrase' || f.kind === 'words');
  const positives = count(data.positive);
  const score = (cover: Bits) => {
    const tp = countAnd(cover, data.positive);
    const matched = count(cover);
    return f1(matched ? tp / matched : 0, positives ? tp / positives : 0);
  };
  let best = { f1: 0, pattern: 'none' };
  const consider = (cover: Bits, pattern: string) => {
    const s = score(cover);
    if (s > best.f1) best = { f1: s, pattern };
  };
  for (let k = 1; k <= Math.min(5, words.length); k++) {
    const top = words.slice(0, k);
    consider(top.map(({ i }) => data.bits[i]).reduce(or), `any: ${top.map(({ f }) => f.values[0]).join(' ')}`);
    consider(top.map(({ i }) => data.bits[i]).reduce(and), `all: ${top.map(({ f }) => f.values[0]).join(' ')}`);
  }
  for (const { f, i } of phrases.slice(0, 20)) consider(data.bits[i], `literal: ${f.values[0]}`);
  return best;
}
