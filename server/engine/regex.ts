/**
 * Regular expressions for rules, compiled with re2js: matching runs in time linear in the input, so
 * hostile document content cannot freeze the server with catastrophic backtracking. The price is
 * RE2's syntax: no lookaround and no backreferences; those are rejected here with a message naming them.
 */
import { RE2JS } from 're2js';
import { literalTest, requiredLiteral } from './regex-literals.js';
import type { ExtractionPick } from './model.js';

/** Patterns longer than this are refused: a rule regex is a line or two, not a program. */
const MAX_PATTERN_LENGTH = 2000;
/**
 * The largest counted repetition (`{n}`, `{n,}`, `{n,m}`). RE2 stays linear, but each count copies the
 * repeated part into the program: `(\w+\s?){1,500}$` takes seconds per 100 KB. Below this, what is
 * still slow (nested counts, extraction with capture groups) is stopped by the evaluation time budget.
 */
export const MAX_REPETITION = 100;
/** `pick: all` keeps at most this many values so a pattern matching everywhere cannot fill memory. */
export const MAX_MATCHES = 1000;

export interface RuleRegex {
  source: string;
  test(text: string): boolean;
  /** Every match's value (named group `value`, else group 1, else the whole match), up to `limit`. */
  values(text: string, limit: number): string[];
  /** The last match's value, scanning the whole text. */
  lastValue(text: string): string | undefined;
  /** The named groups of the first, last or every match (up to `limit`); a group that took no part is missing. */
  groupMatches(text: string, pick: ExtractionPick, limit: number): Array<Record<string, string | undefined>>;
  /** The names of the pattern's named groups. */
  groupNames: string[];
  /** Where the first match starts and what it matched (the whole match). */
  firstMatch(text: string): { index: number; text: string } | undefined;
  /** Where each match starts and how long it is (the whole match), up to `limit`: for highlighting. */
  spans(text: string, limit: number): Array<{ start: number; end: number }>;
}

export class RegexSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegexSyntaxError';
  }
}

/** Constructs RE2 lacks, found by a scan that skips escapes and character classes. */
function unsupportedConstruct(pattern: string): string | null {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next))
        return `backreferences such as \\${next} are not supported (RE2 syntax); match the text again with a second pattern instead`;
      if (!inClass && next === 'k' && pattern[i + 2] === '<')
        return 'named backreferences (\\k<name>) are not supported (RE2 syntax)';
      if (!inClass && next === 'Z') return '\\Z is not supported (RE2 syntax); use \\z or $';
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      if (pattern[i + 1] === ']') i++;
      else if (pattern[i + 1] === '^' && pattern[i + 2] === ']') i += 2;
      continue;
    }
    if (c === '{') {
      const bound = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
      const largest = bound ? Math.max(Number(bound[1]), Number(bound[3] || 0)) : 0;
      if (largest > MAX_REPETITION) {
        return `the repetition bound ${bound?.[0]} is larger than ${MAX_REPETITION}, which makes the pattern slow on long documents; use + or * (they stay fast) or a bound of at most ${MAX_REPETITION}`;
      }
    }
    if (c === '(' && pattern[i + 1] === '?') {
      const rest = pattern.slice(i + 2, i + 4);
      if (rest.startsWith('=') || rest.startsWith('!'))
        return `lookahead (?${rest[0]}…) is not supported (RE2 syntax, linear time); match more text and capture the part you need with (?<value>…)`;
      if (rest === '<=' || rest === '<!')
        return `lookbehind (?${rest}…) is not supported (RE2 syntax, linear time); match the preceding text too and capture the part you need with (?<value>…)`;
      if (rest.startsWith('>'))
        return 'atomic groups (?>…) are not supported (RE2 syntax); they are not needed because RE2 never backtracks';
    }
  }
  return null;
}

/** Compiles a rule regex or throws RegexSyntaxError with a message a person can act on. */
export function compileRegex(pattern: string): RuleRegex {
  if (pattern.length > MAX_PATTERN_LENGTH)
    throw new RegexSyntaxError(`the pattern is ${pattern.length} characters long; the limit is ${MAX_PATTERN_LENGTH}`);
  const unsupported = unsupportedConstruct(pattern);
  if (unsupported) throw new RegexSyntaxError(`invalid regular expression /${pattern}/: ${unsupported}`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (err) {
    const reason = err instanceof Error ? err.message.replace(/^error parsing regexp: /, '') : String(err);
    throw new RegexSyntaxError(`invalid regular expression /${pattern}/: ${reason}`);
  }
  // Shortcuts that answer as RE2 would without scanning the text with it (regex-literals.ts).
  const fastTest = literalTest(pattern);
  const literal = requiredLiteral(pattern);
  const cannotMatch = (text: string) => literal !== null && !text.includes(literal);
  const named = re.namedGroups();
  const valueGroup: string | number = 'value' in named ? 'value' : re.groupCount() >= 1 ? 1 : 0;
  const pick = (m: RegExpMatchArray): string => {
    const v = typeof valueGroup === 'string' ? m.groups?.[valueGroup] : m[valueGroup];
    return v ?? '';
  };
  return {
    source: pattern,
    groupNames: Object.keys(named),
    groupMatches(text, which, limit) {
      const out: Array<Record<string, string | undefined>> = [];
      if (cannotMatch(text)) return out;
      for (const m of re.matchAll(text)) {
        const groups = { ...(m.groups ?? {}) };
        if (which === 'last') out[0] = groups;
        else out.push(groups);
        if (which === 'first' || (which === 'all' && out.length >= limit)) break;
      }
      return out;
    },
    test: (text) => (cannotMatch(text) ? false : (fastTest?.(text) ?? re.test(text))),
    values(text, limit) {
      const out: string[] = [];
      if (cannotMatch(text)) return out;
      for (const m of re.matchAll(text)) {
        out.push(pick(m));
        if (out.length >= limit) break;
      }
      return out;
    },
    firstMatch(text) {
      if (cannotMatch(text)) return undefined;
      for (const m of re.matchAll(text)) return { index: m.index ?? 0, text: m[0] };
      return undefined;
    },
    spans(text, limit) {
      const out: Array<{ start: number; end: number }> = [];
      if (cannotMatch(text)) return out;
      for (const m of re.matchAll(text)) {
        if (m[0] === '') continue; // an empty match marks nothing
        out.push({ start: m.index ?? 0, end: (m.index ?? 0) + m[0].length });
        if (out.length >= limit) break;
      }
      return out;
    },
    lastValue(text) {
      let last: string | undefined;
      if (cannotMatch(text)) return last;
      for (const m of re.matchAll(text)) last = pick(m);
      return last;
    },
  };
}
