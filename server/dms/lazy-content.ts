import { decodeBody } from './body-text.js';

// A page of whole documents is ~90 % OCR text that, in a job, only the evaluation worker reads. Decoding it,
// parsing it and cloning it to the worker on the service's main thread (and collecting the strings after) was
// a third of that thread's work (docs/performance.md, third round). So a page's JSON is parsed without the
// documents' `content` values: each stays the JSON string literal the dms sent (UTF-8 bytes), decoded when
// something reads `content` (the state digest, a query, the inline evaluator), or by the worker, which
// decodes a whole batch's literals in one JSON.parse (eval-pool.ts).

const KEY = Buffer.from('"content":"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A document's content as the dms sent it (a JSON string literal), and the text once something decoded it. */
interface ContentCell {
  literal: Buffer;
  text?: string;
}

const cells = new WeakMap<object, ContentCell>();

/** The text of a JSON string literal, decoded exactly as the whole body would have been. */
export function decodeLiteral(literal: Buffer): string {
  return JSON.parse(decodeBody(literal)) as string;
}

/** Gives `target` a `content` property that decodes `cell` on first read; setting it stores a plain string. */
function defineLazyContent(target: object, cell: ContentCell): void {
  cells.set(target, cell);
  Object.defineProperty(target, 'content', {
    enumerable: true,
    configurable: true,
    get: () => (cell.text ??= decodeLiteral(cell.literal)),
    set: (value: unknown) => {
      cells.delete(target);
      Object.defineProperty(target, 'content', { value, writable: true, enumerable: true, configurable: true });
    },
  });
}

/** The undecoded literal of `target.content`, or null when it is a plain string (or was read already). */
export function pendingContent(target: object): Buffer | null {
  const cell = cells.get(target);
  return cell && cell.text === undefined ? cell.literal : null;
}

/** Sets `to.content` to `from.content` without decoding it when nobody has read it yet. */
export function copyContent(from: { content?: string }, to: { content: string }): void {
  const cell = cells.get(from);
  if (cell && cell.text === undefined) defineLazyContent(to, cell);
  else to.content = from.content ?? '';
}

/** A page body split into the JSON text without the documents' contents and the contents' literals. */
export interface SplitPage {
  /** The body's text with each top-level document's content replaced by its index in `literals`. */
  text: string;
  literals: Buffer[];
  /** What the body's text length would have been, near enough (literals counted in bytes). */
  length: number;
}

/** Index of the quote that closes the string literal opened at `open`, or -1. */
function closingQuote(bytes: Buffer, open: number): number {
  let at = open + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, at);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

/**
 * Cuts every `"content":"…"` literal out of a list body. Inside a JSON string every quote is escaped, so the
 * bytes `"content":"` only occur as a key; one nested in another object is caught by `attachContents`, which
 * then refuses the split. Null when the body has no content to cut out (or is not what it seems).
 */
export function splitContents(body: Buffer): SplitPage | null {
  const literals: Buffer[] = [];
  const parts: Buffer[] = [];
  let from = 0;
  let digits = 0;
  for (;;) {
    const key = body.indexOf(KEY, from);
    if (key < 0) break;
    const open = key + KEY.length - 1;
    const close = closingQuote(body, open);
    if (close < 0) return null;
    const index = String(literals.length);
    digits += index.length;
    literals.push(body.subarray(open, close + 1));
    parts.push(body.subarray(from, open), Buffer.from(index));
    from = close + 1;
  }
  if (literals.length === 0) return null;
  parts.push(body.subarray(from));
  const text = decodeBody(Buffer.concat(parts));
  const literalBytes = literals.reduce((sum, l) => sum + l.length, 0);
  return { text, literals, length: text.length - digits + literalBytes };
}

/**
 * Puts the cut-out contents back into the parsed page as lazily decoded properties. False when the page does
 * not hold exactly one cut-out content per top-level document that has one, in order: the caller parses the
 * whole body instead.
 */
export function attachContents(json: unknown, split: SplitPage): boolean {
  const results = (json as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) return false;
  let next = 0;
  for (const doc of results as unknown[]) {
    if (doc === null || typeof doc !== 'object' || !('content' in doc)) continue;
    if ((doc as { content: unknown }).content !== next) return false;
    next++;
  }
  if (next !== split.literals.length) return false;
  for (const doc of results as unknown[])
    if (doc !== null && typeof doc === 'object' && 'content' in doc)
      defineLazyContent(doc, { literal: split.literals[(doc as { content: number }).content] });
  return true;
}
