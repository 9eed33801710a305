// Where in the YAML structure the cursor is, read from indentation alone, so completion works while
// the file is half-typed and does not parse. Pure: no DOM, unit-tested.

/** '[]' stands for "an item of a sequence"; any other segment is a mapping key. */
export const ITEM = '[]';

export interface YamlContext {
  /** key: a mapping key or sequence item starts here; value: the value after `key:` is typed here. */
  kind: 'key' | 'value';
  /** For key: the path of the container being filled; for value: the path of the value itself. */
  path: string[];
  /** The word typed so far (without an opening quote). */
  prefix: string;
  /** Offset of the prefix's first character from the start of the line. */
  fromColumn: number;
}

interface Element {
  column: number;
  key: string | null; // null: a sequence dash
}

const LINE = /^(\s*)((?:-[ \t]+)*)(.*)$/;
const KEY = /^("[^"]*"|'[^']*'|[^\s:#'"[\]{},][^:#]*?)[ \t]*:(?:[ \t]+|$)/;

function unquote(key: string): string {
  return /^["'].*["']$/.test(key) ? key.slice(1, -1) : key;
}

/** The dashes and the key of one line, with their columns. */
function elementsOf(line: string): Element[] {
  const m = LINE.exec(line);
  if (!m) return [];
  const [, indent, dashes, rest] = m;
  const out: Element[] = [];
  let col = indent.length;
  for (const dash of dashes.match(/-[ \t]+/g) ?? []) {
    out.push({ column: col, key: null });
    col += dash.length;
  }
  const key = KEY.exec(rest);
  if (key) out.push({ column: col, key: unquote(key[1]) });
  return out;
}

/** Ancestors of a position at `limit` columns, from the lines above it (nearest first, then reversed). */
function ancestors(lines: string[], limit: number): string[] {
  const path: string[] = [];
  for (let i = lines.length - 1; i >= 0 && limit > 0; i--) {
    const line = lines[i];
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const elements = elementsOf(line);
    for (let j = elements.length - 1; j >= 0; j--) {
      const el = elements[j];
      if (el.column < limit) {
        path.push(el.key ?? ITEM);
        limit = el.column;
      }
    }
  }
  return path.reverse();
}

/** The completion context for a cursor at `column` on line `lineIndex` of `text`. */
export function yamlContextAt(text: string, lineIndex: number, column: number): YamlContext | null {
  const lines = text.split('\n');
  const before = (lines[lineIndex] ?? '').slice(0, column);
  if (/(^|\s)#/.test(before)) return null; // in a comment
  const m = LINE.exec(before);
  if (!m) return null;
  const [, indent, dashes, rest] = m;
  const dashCount = (dashes.match(/-[ \t]+/g) ?? []).length;
  const firstColumn = indent.length;
  const keyColumn = indent.length + dashes.length;
  const above = ancestors(lines.slice(0, lineIndex), firstColumn);
  const here = [...above, ...Array<string>(dashCount).fill(ITEM)];

  const key = KEY.exec(rest);
  if (!key) {
    if (/[:{}[\],]/.test(rest)) return null;
    const quoted = /^["']/.test(rest);
    return { kind: 'key', path: here, prefix: quoted ? rest.slice(1) : rest, fromColumn: keyColumn + (quoted ? 1 : 0) };
  }
  const valuePath = [...here, unquote(key[1])];
  const valueStart = keyColumn + key[0].length;
  const value = rest.slice(key[0].length);
  if (value.startsWith('[') || value.startsWith('{')) return flowContext(value, valueStart, valuePath);
  if (value.startsWith('|') || value.startsWith('>')) return null;
  const quoted = /^["']/.test(value);
  return {
    kind: 'value',
    path: valuePath,
    prefix: value.slice(quoted ? 1 : 0),
    fromColumn: valueStart + (quoted ? 1 : 0),
  };
}

interface FlowFrame {
  kind: 'map' | 'seq';
  path: string[];
  /** In a map: the key whose value is being typed, or null while a key is typed. */
  key: string | null;
}

/**
 * The context inside flow collections on one line, nested freely: `content: { matches: … }`,
 * `tags: { any: [a, b` and `add_tags: [x, `. Null once every bracket is closed.
 */
function flowContext(value: string, valueStart: number, valuePath: string[]): YamlContext | null {
  const stack: FlowFrame[] = [];
  let tokenStart = 0;
  const innerPath = (): string[] => {
    const top = stack[stack.length - 1];
    if (!top) return valuePath;
    return top.kind === 'map' ? [...top.path, top.key ?? ''] : [...top.path, ITEM];
  };
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '"' || c === "'") {
      const end = value.indexOf(c, i + 1);
      if (end === -1) break; // an open quote: the prefix is being typed inside it
      i = end;
    } else if (c === '{' || c === '[') {
      stack.push({ kind: c === '{' ? 'map' : 'seq', path: innerPath(), key: null });
      tokenStart = i + 1;
    } else if (c === '}' || c === ']') {
      stack.pop();
      if (stack.length === 0) return null;
      tokenStart = i + 1;
    } else if (c === ':' && /^(\s|$)/.test(value.slice(i + 1, i + 2)) && stack[stack.length - 1]?.kind === 'map') {
      stack[stack.length - 1].key = unquote(value.slice(tokenStart, i).trim());
      tokenStart = i + 1;
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top?.kind === 'map') top.key = null;
      tokenStart = i + 1;
    }
  }
  const top = stack[stack.length - 1];
  if (!top) return null;
  const token = value.slice(tokenStart);
  const lead = token.length - token.trimStart().length;
  const quoted = /^["']/.test(token.trimStart());
  const prefix = token.trimStart().slice(quoted ? 1 : 0);
  const fromColumn = valueStart + tokenStart + lead + (quoted ? 1 : 0);
  if (top.kind === 'map' && top.key === null) return { kind: 'key', path: top.path, prefix, fromColumn };
  return {
    kind: 'value',
    path: top.kind === 'map' ? [...top.path, top.key ?? ''] : [...top.path, ITEM],
    prefix,
    fromColumn,
  };
}
