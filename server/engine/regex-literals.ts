// Shortcuts for rule regexes whose answer a plain substring search gives (re2js scanning 2–20 KB of
// OCR text was half the evaluation's CPU). Each shortcut answers exactly as RE2 would, or declines.

const META = new Set(['\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}']);
const QUANTIFIER = new Set(['?', '*', '+', '{']);
/** Literal alternatives the case-insensitive shortcut handles: ASCII without regex syntax. */
const ASCII_LITERAL = /^[A-Za-z0-9 _\-:,;'"/#%&=<>@~!]+$/;
/** Characters RE2's case folding puts beside ASCII letters (Kelvin sign beside k, long s beside s). */
const FOLDS_TO_ASCII = /[\u212A\u017F]/;

/**
 * `test` of a pattern that is only literal alternatives (`invoice|Rechnung`, `(?i)rechnung|invoice`), or null.
 * The function answers undefined where RE2 must: case-insensitive, JavaScript's non-unicode `i` folds ASCII
 * letters only among themselves, as RE2 does, except for the two characters RE2 also folds onto k and s.
 */
export function literalTest(pattern: string): ((text: string) => boolean | undefined) | null {
  const insensitive = pattern.startsWith('(?i)');
  const alternatives = (insensitive ? pattern.slice(4) : pattern).split('|');
  if (alternatives.some((a) => a === '' || !ASCII_LITERAL.test(a))) return null;
  if (!insensitive) return (text) => alternatives.some((a) => text.includes(a));
  // Only [A-Za-z0-9 …] without regex syntax reaches here, so the source is the same literal alternation.
  const native = new RegExp(alternatives.join('|'), 'i');
  return (text) => (FOLDS_TO_ASCII.test(text) ? undefined : native.test(text));
}

/**
 * The literal text every match of `pattern` contains (its leading run of plain characters, without flags or
 * alternation), when it is at least 3 characters long; else null. Text without it cannot match.
 */
export function requiredLiteral(pattern: string): string | null {
  if (pattern.includes('|') || pattern.startsWith('(?')) return null;
  let end = 0;
  while (end < pattern.length && !META.has(pattern[end])) end++;
  // A quantifier after the run applies to its last character only, which is then optional.
  if (end < pattern.length && QUANTIFIER.has(pattern[end])) end--;
  return end >= 3 ? pattern.slice(0, end) : null;
}
