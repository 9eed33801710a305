import { and, andNot, bitsWhere, count, countAnd, or, emptyBits, type Bits } from './bitset.js';
import type { Dataset } from './candidates.js';

/** A condition of a clause: the candidate feature holds (or, negated, does not). */
export interface Literal {
  feature: number;
  negated: boolean;
}

/** Conditions that must all hold; a rule set holds when any of its clauses does. */
export type Clause = Literal[];

export interface CoveringOptions {
  /** A clause is kept only when at least this share of the training documents it matches carry the label. */
  minPrecision: number;
  maxClauses?: number;
  maxLiterals?: number;
}

export interface CoveringResult {
  clauses: Clause[];
  /** The best clause grown, kept or not, with its training precision (what a person is told when nothing is kept). */
  best: { clause: Clause; precision: number } | null;
}

/** A stable pseudo-random number per document id, so the same archive splits the same way on every run. */
export function mixId(id: number): number {
  let h = Math.imul(id ^ 0x9e3779b9, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The documents a clause holds for. */
export function clauseCover(data: Dataset, clause: Clause): Bits {
  let cover = bitsWhere(data.n, () => true);
  for (const literal of clause)
    cover = literal.negated ? andNot(cover, data.bits[literal.feature]) : and(cover, data.bits[literal.feature]);
  return cover;
}

export function ruleCover(data: Dataset, clauses: readonly Clause[]): Bits {
  return clauses.reduce((cover, clause) => or(cover, clauseCover(data, clause)), emptyBits(data.n));
}

const laplace = (p: number, n: number): number => Math.log2((p + 1) / (p + n + 2));

/** Adds the literal with the best FOIL gain until the clause matches no negative or nothing gains. */
function growClause(data: Dataset, pos: Bits, neg: Bits, maxLiterals: number, floor: number): Clause {
  const clause: Clause = [];
  let covPos = pos;
  let covNeg = neg;
  while (clause.length < maxLiterals) {
    const p0 = count(covPos);
    const n0 = count(covNeg);
    // Precise enough: a further condition would only chase the odd wrong label and lose documents.
    if (p0 === 0 || (clause.length > 0 && graced(p0, n0) >= floor)) break;
    const before = laplace(p0, n0);
    let best: { literal: Literal; gain: number } | null = null;
    for (let f = 0; f < data.features.length; f++) {
      if (clause.some((l) => l.feature === f)) continue;
      const pIn = countAnd(covPos, data.bits[f]);
      const nIn = countAnd(covNeg, data.bits[f]);
      // A negated condition only refines a clause (exceptions such as a sender merely mentioned).
      const options: Array<[boolean, number, number]> = [[false, pIn, nIn]];
      // It must set aside at least two other documents: one is as likely a wrong label as an exception.
      if (clause.length > 0 && nIn >= 2) options.push([true, p0 - pIn, n0 - nIn]);
      for (const [negated, p1, n1] of options) {
        if (p1 < 1) continue;
        const gain = p1 * (laplace(p1, n1) - before);
        if (gain > (best?.gain ?? 1e-9)) best = { literal: { feature: f, negated }, gain };
      }
    }
    if (!best) break;
    clause.push(best.literal);
    const bits = data.bits[best.literal.feature];
    covPos = best.literal.negated ? andNot(covPos, bits) : and(covPos, bits);
    covNeg = best.literal.negated ? andNot(covNeg, bits) : and(covNeg, bits);
  }
  return clause;
}

/**
 * Pruning on the held-out documents: the shortest prefix of the clause that is precise enough there, else
 * RIPPER's choice, the prefix with the best (p − n) / (p + n).
 */
function pruneClause(data: Dataset, clause: Clause, pos: Bits, neg: Bits, floor: number): Clause {
  if (count(pos) + count(neg) === 0) return clause;
  let bestLength = clause.length;
  let bestValue = -Infinity;
  for (let k = 1; k <= clause.length; k++) {
    const cover = clauseCover(data, clause.slice(0, k));
    const p = countAnd(cover, pos);
    const n = countAnd(cover, neg);
    if (p > 0 && graced(p, n) >= floor) return clause.slice(0, k);
    const value = p + n === 0 ? -1 : (p - n) / (p + n);
    if (value >= bestValue) {
      bestValue = value;
      bestLength = k;
    }
  }
  return clause.slice(0, bestLength);
}

/** Precision with one disagreement forgiven: in a few dozen documents, one wrong label must not sink a clean rule. */
const graced = (p: number, n: number): number => (p + n === 0 ? 0 : (p + 1) / (p + n + 1));

/**
 * Sequential covering over the training documents: grow a clause for precision on two thirds of them, prune it
 * on the other third, keep it when its precision over all of them reaches the floor, then cover the rest.
 */
export function learnClauses(data: Dataset, train: Bits, options: CoveringOptions): CoveringResult {
  const maxClauses = options.maxClauses ?? 5;
  const maxLiterals = options.maxLiterals ?? 3;
  const pruneSet = bitsWhere(data.n, (d) => mixId(data.ids[d] * 7 + 3) % 3 === 0);
  const trainPos = and(train, data.positive);
  const trainNeg = andNot(train, data.positive);
  const minNew = Math.max(2, Math.ceil(0.03 * count(trainPos)));
  let remaining = trainPos;
  const clauses: Clause[] = [];
  let best: CoveringResult['best'] = null;
  let failures = 0;
  while (clauses.length < maxClauses && count(remaining) >= minNew) {
    const grown = growClause(
      data,
      andNot(remaining, pruneSet),
      andNot(trainNeg, pruneSet),
      maxLiterals,
      options.minPrecision,
    );
    if (grown.length === 0) break;
    let clause = pruneClause(data, grown, and(remaining, pruneSet), and(trainNeg, pruneSet), options.minPrecision);
    let { cover, precision } = judge(data, clause, trainPos, trainNeg);
    if (precision < options.minPrecision) {
      // The held-out third had the exceptions the grown two thirds lacked: grow once more on all of them.
      const regrown = growClause(data, remaining, trainNeg, maxLiterals, options.minPrecision);
      const second = judge(data, regrown, trainPos, trainNeg);
      if (regrown.length > 0 && second.precision > precision) {
        cover = second.cover;
        precision = second.precision;
        clause = regrown;
      }
    }
    if (!best || precision > best.precision) best = { clause, precision };
    if (countAnd(cover, remaining) < minNew) break;
    // A clause below the floor is dropped and its documents set aside, so the next one looks at the others
    // (a tag that spans senders needs one clause each); two such in a row end the search.
    if (precision >= options.minPrecision) {
      clauses.push(clause);
      failures = 0;
    } else if (++failures >= 2) break;
    remaining = andNot(remaining, cover);
  }
  return { clauses, best };
}

function judge(data: Dataset, clause: Clause, pos: Bits, neg: Bits): { cover: Bits; precision: number } {
  const cover = clauseCover(data, clause);
  const p = countAnd(cover, pos);
  const n = countAnd(cover, neg);
  return { cover, precision: graced(p, n) };
}
