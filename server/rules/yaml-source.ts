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
import { ValidationError } from '../errors.js';
import { errorMessage } from '../error-message.js';

/** Expanded aliases allowed per file: a handful is normal YAML, thousands is an alias bomb. */
export const MAX_ALIAS_COUNT = 100;
/** Nesting deeper than this is not a rule anyone writes; it only serves to exhaust the stack. */
export const MAX_DEPTH = 64;

export type YamlPath = ReadonlyArray<string | number>;

export interface Position {
  line: number;
  column: number;
}

/** A parsed YAML file that can say where any value came from. */
export interface YamlSource {
  value: unknown;
  /** Position of the node at `path`, or of the deepest existing node on the way to it. */
  positionOf(path: YamlPath): Position;
  /** Position of the key `key` in the mapping at `path` (for "unknown key" errors), else of the mapping. */
  keyPositionOf(path: YamlPath, key: string): Position;
}

/** "line 3, column 5: message", with line/column on the error for the API body. */
export function positionedError(position: Position, message: string): ValidationError {
  return new ValidationError(
    `line ${position.line}, column ${position.column}: ${message}`,
    position.line,
    position.column,
  );
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
  const problem = doc.errors[0];
  if (problem) {
    const message = problem.message.replace(/ at line \d+, column \d+$/, '');
    throw positionedError(at(problem.pos[0]), `YAML syntax error: ${message}`);
  }
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

  const nodeAt = (path: YamlPath): Node | null => {
    let node: unknown = doc.contents;
    let last: Node | null = isNode(node) ? node : null;
    for (const segment of path) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment));
        node = pair?.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        node = node.items[segment];
      } else {
        break;
      }
      if (!isNode(node)) break;
      last = node;
    }
    return last;
  };
  const positionOfNode = (node: Node | null): Position => (node?.range ? at(node.range[0]) : { line: 1, column: 1 });

  return {
    value,
    positionOf: (path) => positionOfNode(nodeAt(path)),
    keyPositionOf(path, key) {
      const node = nodeAt(path);
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key);
        if (pair && isNode(pair.key)) return positionOfNode(pair.key);
      }
      return positionOfNode(node);
    },
  };
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
