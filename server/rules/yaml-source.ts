import {
  isAlias,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  type Document,
  type Node,
} from 'yaml';
import { errorMessage } from '../error-message.js';
import { positionedError, problemsError, type Position } from './file-problems.js';
import { yamlProblems } from './yaml-hints.js';

export { positionedError, type Position } from './file-problems.js';

/** Expanded aliases allowed per file: a handful is normal YAML, thousands is an alias bomb. */
export const MAX_ALIAS_COUNT = 100;
/** Nesting deeper than this is not a rule anyone writes; it only serves to exhaust the stack. */
export const MAX_DEPTH = 64;

export type YamlPath = ReadonlyArray<string | number>;

/** Where a value or key is: its start, and the end of what an editor underlines (exclusive). */
export interface Span extends Position {
  endLine: number;
  endColumn: number;
}

/** A parsed YAML file that can say where any value came from. */
export interface YamlSource {
  value: unknown;
  /**
   * The node at `path`, or the deepest existing node on the way to it: a scalar's whole text, a mapping's or
   * list's first line (never the whole block).
   */
  positionOf(path: YamlPath): Span;
  /** The key `key` in the mapping at `path` (for "unknown key" errors), else the mapping as `positionOf`. */
  keyPositionOf(path: YamlPath, key: string): Span;
  /**
   * `word` inside the scalar at `path` (a name inside a template's braces first), else the scalar as
   * `positionOf`: a template typo underlines the name, not the whole value.
   */
  wordPositionOf(path: YamlPath, word: string): Span;
  /**
   * The comment right after an unquoted value at `path` on its own line (`name: Rechnung #1` is the value
   * "Rechnung" and the comment "#1"), with its text, or null.
   */
  trailingComment(path: YamlPath): (Span & { text: string }) | null;
}

/**
 * Stage 1 of validation (docs/rule-files.md#validation): YAML syntax with alias and depth limits.
 * Throws a ValidationError naming line and column; an empty file parses to null.
 */
export function parseYamlSource(text: string): YamlSource {
  const lineCounter = new LineCounter();
  const deepBracket = deepFlowBracket(text);
  if (deepBracket >= 0) {
    const before = text.slice(0, deepBracket);
    const position = { line: before.split('\n').length, column: deepBracket - before.lastIndexOf('\n') };
    throw positionedError(position, `YAML error: brackets nested deeper than ${MAX_FLOW_BRACKETS} levels`);
  }
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, strict: true, version: '1.2' });
  const at = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const span = (from: number, to: number): Span => {
    const end = at(Math.max(to, from + 1));
    return { ...at(from), endLine: end.line, endColumn: end.column };
  };
  if (doc.errors.length > 0) throw problemsError(yamlProblems(text, doc.errors, at));
  checkDepth(doc, at);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    const alias = firstAlias(doc);
    const position = alias?.range ? at(alias.range[0]) : { line: 1, column: 1 };
    const reason =
      err instanceof ReferenceError && /alias/i.test(err.message)
        ? `too many alias expansions (more than ${MAX_ALIAS_COUNT}); the file looks like an alias bomb`
        : errorMessage(err);
    throw positionedError(position, `YAML error: ${reason}`);
  }

  /** The node at `path` (or the deepest existing one on the way) and the key node that introduces it. */
  const nodeAt = (path: YamlPath): { node: Node | null; key: Node | null } => {
    let node: unknown = doc.contents;
    let last: Node | null = isNode(node) ? node : null;
    let lastKey: Node | null = null;
    for (const segment of path) {
      let key: unknown = null;
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment));
        node = pair?.value;
        key = pair?.key;
      } else if (isSeq(node) && typeof segment === 'number') {
        node = node.items[segment];
      } else {
        break;
      }
      if (!isNode(node)) break;
      last = node;
      lastKey = isNode(key) ? key : null;
    }
    return { node: last, key: lastKey };
  };
  /** A scalar's text; a collection's first line up to a comment (a block's first entry, a flow mapping's line). */
  const spanOfNode = (node: Node | null): Span => {
    if (!node?.range) return { line: 1, column: 1, endLine: 1, endColumn: 2 };
    const [from, valueEnd] = node.range;
    if (!isMap(node) && !isSeq(node)) return span(from, valueEnd);
    const lineEnd = text.indexOf('\n', from);
    const firstLine = text.slice(from, Math.min(lineEnd === -1 ? text.length : lineEnd, valueEnd));
    const content = firstLine.replace(/\s+#.*$/, '').trimEnd();
    return span(from, from + Math.max(content.length, 1));
  };
  const keySpan = (path: YamlPath, key: string): Span | null => {
    const { node } = nodeAt(path);
    if (!isMap(node)) return null;
    const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key);
    return pair && isNode(pair.key) ? spanOfNode(pair.key) : null;
  };

  const trailingComment = (path: YamlPath): (Span & { text: string }) | null => {
    const { node } = nodeAt(path);
    if (!isScalar(node) || node.type !== 'PLAIN' || !node.range || path.length === 0) return null;
    // nodeAt stops at the deepest node it finds: only the value at `path` itself counts.
    if (nodeAt(path.slice(0, -1)).node === node) return null;
    const end = node.range[1];
    const lineEnd = text.indexOf('\n', end);
    const rest = text.slice(end, lineEnd === -1 ? text.length : lineEnd);
    const m = /^[ \t]+(#.*?)\s*$/.exec(rest);
    if (!m) return null;
    const from = end + rest.indexOf('#');
    return { ...span(from, from + m[1].length), text: m[1] };
  };

  return {
    value,
    trailingComment,
    positionOf: (path) => spanOfNode(nodeAt(path).node),
    keyPositionOf: (path, key) => keySpan(path, key) ?? spanOfNode(nodeAt(path).node),
    wordPositionOf(path, word) {
      const { node } = nodeAt(path);
      if (!word || !isScalar(node) || !node.range) return spanOfNode(node);
      const [from, to] = node.range;
      const raw = text.slice(from, to);
      const offset = wordInTemplate(raw, word);
      return offset === -1 ? spanOfNode(node) : span(from + offset, from + offset + word.length);
    },
  };
}

/** Where `word` stands in `raw`: inside `{{ }}` or `{% %}` first (the template's own text), else anywhere; -1 if not. */
function wordInTemplate(raw: string, word: string): number {
  for (const block of raw.matchAll(/\{[{%][\s\S]*?[%}]\}/g)) {
    const inner = block[0].indexOf(word);
    if (inner !== -1) return block.index + inner;
  }
  return raw.indexOf(word);
}

/** Bracket nesting allowed by the pre-scan; far above MAX_DEPTH, so only abuse trips it. */
const MAX_FLOW_BRACKETS = 256;

/**
 * The YAML parser needs seconds (and overflows the stack) on hundreds of thousands of nested `[`;
 * a raw count of unclosed brackets, quotes ignored, refuses that before parsing. Returns the offset or -1.
 */
function deepFlowBracket(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_FLOW_BRACKETS) return i;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) {
      depth--;
    }
  }
  return -1;
}

function checkDepth(doc: Document, at: (offset: number) => Position): void {
  // Iterative, so a deliberately deep file cannot overflow the stack while being checked.
  const stack: Array<{ node: unknown; depth: number }> = [{ node: doc.contents, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (!isMap(node) && !isSeq(node)) continue;
    if (depth > MAX_DEPTH) {
      const position = node.range ? at(node.range[0]) : { line: 1, column: 1 };
      throw positionedError(position, `YAML error: nesting deeper than ${MAX_DEPTH} levels`);
    }
    for (const item of node.items) {
      if (isPair(item)) {
        stack.push({ node: item.key, depth: depth + 1 }, { node: item.value, depth: depth + 1 });
      } else {
        stack.push({ node: item, depth: depth + 1 });
      }
    }
  }
}

function firstAlias(doc: Document): Node | null {
  let first: Node | null = null;
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isAlias(node) && node.range && (!first?.range || node.range[0] < first.range[0])) first = node;
    else if (isMap(node)) for (const pair of node.items) stack.push(pair.value, pair.key);
    else if (isSeq(node)) stack.push(...node.items);
  }
  return first;
}
