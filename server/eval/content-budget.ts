import type { RuleDocument, RuleResult } from '../engine/engine.js';

/**
 * The most document text a rule scans: 1,000,000 characters (about 1 MB). Content comes from mail and
 * scanners, so it is attacker input; past this, regexes and templates see only the beginning.
 */
export const CONTENT_LIMIT = 1_000_000;

/** The document as rules see it, its content cut to `limit`, and how long it was when cut. */
export function capContent(
  document: RuleDocument,
  limit = CONTENT_LIMIT,
): { document: RuleDocument; cutFrom: number | null } {
  if (document.content.length <= limit) return { document, cutFrom: null };
  return { document: { ...document, content: document.content.slice(0, limit) }, cutFrom: document.content.length };
}

/** The first line of a trace whose document was cut: rules saw only the beginning. */
export function withContentCut(result: RuleResult, cutFrom: number, limit = CONTENT_LIMIT): RuleResult {
  const n = (x: number) => x.toLocaleString('en-US');
  const note = {
    path: 'content',
    field: 'content',
    description: `content cut: rules scanned the first ${n(limit)} of ${n(cutFrom)} characters (the content limit)`,
    result: true,
  };
  return { ...result, conditions: [note, ...result.conditions] };
}
