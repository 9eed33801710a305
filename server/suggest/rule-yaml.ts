import { stringify } from 'yaml';
import type { RuleDocument } from '../engine/engine.js';
import type { LearnedLiteral } from './learner.js';

/** A learned condition in the rule language (docs/rules.md): what a person would have written. */
export function conditionOf({ feature, negated }: LearnedLiteral): Record<string, unknown> {
  const [value] = feature.values;
  let condition: Record<string, unknown>;
  switch (feature.kind) {
    case 'words':
      condition = { content: { any_word: feature.values } };
      break;
    case 'phrase':
      condition = { content: { any_word: [value] } };
      break;
    case 'part_word':
      condition = { content: { matches: `(?i)${escapeRegex(value)}` } };
      break;
    case 'fuzzy':
      condition = { content: { fuzzy: value } };
      break;
    case 'identifier':
      condition = { content: { contains: value } };
      break;
    case 'correspondent':
      condition = { correspondent: value };
      break;
    case 'document_type':
      condition = { document_type: value };
      break;
  }
  return negated ? { not: condition } : condition;
}

/** `when:` of a rule that holds when any clause holds, each clause when all its conditions do. */
export function whenOf(clauses: readonly LearnedLiteral[][]): Record<string, unknown> {
  const parts = clauses.map((clause) =>
    clause.length === 1 ? conditionOf(clause[0]) : { all: clause.map(conditionOf) },
  );
  return parts.length === 1 ? parts[0] : { any: parts };
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The text a condition looks for, as a pattern for picking the parts of an example worth keeping. */
function patternOf({ feature }: LearnedLiteral): RegExp | null {
  switch (feature.kind) {
    case 'words':
    case 'phrase':
    case 'part_word':
    case 'fuzzy':
    case 'identifier':
      return new RegExp(feature.values.map((v) => escapeRegex(v).replace(/ /g, '\\s+')).join('|'), 'giu');
    default:
      return null;
  }
}

const WINDOW = 60;

/**
 * The parts of a real document's text around what the rule's conditions look for (negated ones too), cut at
 * white space: a test example short enough to read that matches or fails for the same reason the document does.
 */
export function excerpt(content: string, clauses: readonly LearnedLiteral[][]): string {
  const spans: Array<[number, number]> = [];
  for (const literal of clauses.flat()) {
    const pattern = patternOf(literal);
    if (!pattern) continue;
    let found = 0;
    for (const m of content.matchAll(pattern)) {
      spans.push([widen(content, m.index, -1), widen(content, m.index + m[0].length, 1)]);
      if (++found >= 3) break;
    }
  }
  if (spans.length === 0) return content.slice(0, widen(content, Math.min(content.length, 200), 1)).trim();
  spans.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([...span]);
  }
  return merged.map(([a, b]) => content.slice(a, b).trim()).join('\n…\n');
}

/** Moves `at` by about WINDOW characters in `direction`, then on to the nearest white space (or the text's end). */
function widen(content: string, at: number, direction: -1 | 1): number {
  let i = Math.max(0, Math.min(content.length, at + direction * WINDOW));
  while (i > 0 && i < content.length && !/\s/.test(content[i])) i += direction;
  return i;
}

export interface SuggestedRule {
  id: string;
  description: string;
  clauses: readonly LearnedLiteral[][];
  action: Record<string, unknown>;
}

/** The suggested rule as a rule file states it (the one the archive is judged with and the file offers). */
export function ruleDefinition({ id, description, clauses, action }: SuggestedRule) {
  return { id, description, on: ['added', 'manual'], when: whenOf(clauses), actions: [action] };
}

export interface RuleFileInput extends SuggestedRule {
  /** Real documents: one the rule must match, one it must not. */
  matching: RuleDocument;
  notMatching: RuleDocument;
  /** Use the whole text of the examples (capped) instead of the parts around the conditions. */
  wholeText?: boolean;
}

/** A complete rule file holding the one suggested rule, with `tests:` from real documents. */
export function ruleFileText(input: RuleFileInput): string {
  const kinds = new Set(input.clauses.flat().map((l) => l.feature.kind));
  const example = (doc: RuleDocument) => {
    const document: Record<string, unknown> = {
      content: input.wholeText ? doc.content.slice(0, 20_000) : excerpt(doc.content, input.clauses),
    };
    if (kinds.has('correspondent')) document.correspondent = doc.correspondent;
    if (kinds.has('document_type')) document.document_type = doc.document_type;
    return document;
  };
  const rule = {
    ...ruleDefinition(input),
    tests: [
      {
        name: `document ${input.matching.id}: ${input.matching.title}`.slice(0, 120),
        document: example(input.matching),
        expect: { matched: true },
      },
      {
        name: `document ${input.notMatching.id}: ${input.notMatching.title}`.slice(0, 120),
        document: example(input.notMatching),
        expect: { matched: false },
      },
    ],
  };
  return stringify({ rules: [rule] }, { lineWidth: 0 });
}
