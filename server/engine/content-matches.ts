/**
 * Where a rule's patterns hit a document's text: the `content` conditions (`matches`, `contains`,
 * `contains_any`, `any_word`, `all_words`, `fuzzy`) and the regex extractions that read `content`. The document
 * panel highlights these spans.
 */
import type { Condition, RuleDefinition } from './model.js';
import { compileRegex } from './regex.js';
import { fuzzyClean, fuzzyCleanText, partialRatio, splitWords, wordPattern as wholeWord } from './word-match.js';

/** One highlighted stretch of the text; `kind` says whether a condition or an extraction found it. */
export interface ContentMatch {
  rule_id: string;
  kind: 'condition' | 'extract';
  /** The pattern or word as the rule wrote it (and the extraction's name). */
  label: string;
  start: number;
  end: number;
}

/** Per pattern: enough for a long document, bounded so a pattern hitting everywhere stays small. */
const MAX_SPANS = 50;

interface Pattern {
  kind: ContentMatch['kind'];
  label: string;
  find(text: string): Array<{ start: number; end: number }>;
}

const isTemplate = (s: string) => s.includes('{{') || s.includes('{%');

function regexPattern(kind: Pattern['kind'], source: string, label: string): Pattern | null {
  if (isTemplate(source)) return null;
  try {
    const re = compileRegex(source);
    return { kind, label, find: (text) => re.spans(text, MAX_SPANS) };
  } catch {
    return null; // the rule's own validation reports a bad pattern; nothing to highlight
  }
}

function wordPattern(word: string, caseSensitive: boolean): Pattern | null {
  if (word === '' || isTemplate(word)) return null;
  const needle = caseSensitive ? word : word.toLocaleLowerCase();
  return {
    kind: 'condition',
    label: word,
    find(text) {
      const hay = caseSensitive ? text : text.toLocaleLowerCase();
      const out: Array<{ start: number; end: number }> = [];
      // Lower-casing can change lengths (rare: İ); then offsets would drift, so only highlight when they agree.
      if (hay.length !== text.length) return out;
      for (
        let at = hay.indexOf(needle);
        at >= 0 && out.length < MAX_SPANS;
        at = hay.indexOf(needle, at + needle.length)
      ) {
        out.push({ start: at, end: at + needle.length });
      }
      return out;
    },
  };
}

/** `any_word` / `all_words`: each word or phrase where it stands as a whole word, as the engine tests it. */
function wholeWordPattern(word: string, caseSensitive: boolean): Pattern | null {
  if (word === '' || isTemplate(word)) return null;
  const re = wholeWord(word, caseSensitive);
  const global = new RegExp(re.source, `${re.flags}g`);
  return {
    kind: 'condition',
    label: word,
    find(text) {
      const out: Array<{ start: number; end: number }> = [];
      for (const m of text.matchAll(global)) {
        out.push({ start: m.index, end: m.index + m[0].length });
        if (out.length >= MAX_SPANS) break;
      }
      return out;
    },
  };
}

/** `fuzzy`: the window Paperless's partial ratio scored best, mapped back from the cleaned text to the text. */
function fuzzyPattern(needle: string, caseSensitive: boolean): Pattern | null {
  if (needle === '' || isTemplate(needle)) return null;
  return {
    kind: 'condition',
    label: `${needle} (fuzzy)`,
    find(text) {
      const kept: number[] = [];
      for (let i = 0; i < text.length; i++) if (fuzzyClean(text[i], true) !== '') kept.push(i);
      const hay = fuzzyCleanText(text, caseSensitive);
      // Lower-casing can change lengths (rare: İ); then offsets would drift, so only highlight when they agree.
      if (hay.length !== kept.length) return [];
      const hit = partialRatio(fuzzyClean(needle, caseSensitive), hay);
      return hit && hit.length > 0 ? [{ start: kept[hit.index], end: kept[hit.index + hit.length - 1] + 1 }] : [];
    },
  };
}

function conditionPatterns(condition: Condition | undefined, out: Pattern[]): void {
  if (!condition || typeof condition !== 'object') return;
  for (const [key, test] of Object.entries(condition)) {
    if (key === 'all' || key === 'any') for (const c of (test as Condition[]) ?? []) conditionPatterns(c, out);
    else if (key === 'not') conditionPatterns(test as Condition, out);
    else if (key === 'content' && test !== null && typeof test === 'object' && !Array.isArray(test)) {
      const op = test as {
        matches?: string | string[];
        contains?: string | number;
        contains_any?: string[];
        any_word?: string | string[];
        all_words?: string | string[];
        fuzzy?: string | string[];
        case_sensitive?: boolean;
      };
      for (const p of op.matches === undefined ? [] : Array.isArray(op.matches) ? op.matches : [op.matches])
        out.push(regexPattern('condition', p, p)!);
      const words = [...(op.contains === undefined ? [] : [String(op.contains)]), ...(op.contains_any ?? [])];
      for (const w of words) out.push(wordPattern(w, op.case_sensitive === true)!);
      for (const operand of [op.any_word, op.all_words])
        if (operand !== undefined)
          for (const w of splitWords(operand)) out.push(wholeWordPattern(w, op.case_sensitive === true)!);
      for (const f of op.fuzzy === undefined ? [] : Array.isArray(op.fuzzy) ? op.fuzzy : [op.fuzzy])
        out.push(fuzzyPattern(f, op.case_sensitive === true)!);
    }
  }
}

function rulePatterns(rule: RuleDefinition): Pattern[] {
  const out: Pattern[] = [];
  conditionPatterns(rule.when, out);
  for (const [name, e] of Object.entries(rule.extract ?? {})) {
    if ((e.from ?? 'content') !== 'content' || e.regex === undefined) continue;
    for (const p of Array.isArray(e.regex) ? e.regex : [e.regex]) out.push(regexPattern('extract', p, name)!);
  }
  return out.filter((p): p is Pattern => p !== null);
}

/** Every span of `text` the rules' content patterns match, ordered by position. */
export function contentMatches(rules: readonly RuleDefinition[], text: string): ContentMatch[] {
  const matches: ContentMatch[] = [];
  for (const rule of rules) {
    for (const pattern of rulePatterns(rule)) {
      for (const span of pattern.find(text))
        matches.push({ rule_id: rule.id, kind: pattern.kind, label: pattern.label, ...span });
    }
  }
  return matches.sort((a, b) => a.start - b.start || b.end - a.end);
}
