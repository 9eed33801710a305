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
  if (value.startsWith('[')) {
    // Flow sequence: complete the item after the last `[` or `,`.
    const cut = Math.max(value.lastIndexOf('['), value.lastIndexOf(','));
    const item = value.slice(cut + 1);
    const lead = item.length - item.trimStart().length;
    const quoted = /^["']/.test(item.trimStart());
    if (value.includes(']')) return null;
    return {
      kind: 'value',
      path: [...valuePath, ITEM],
      prefix: item.trimStart().slice(quoted ? 1 : 0),
      fromColumn: valueStart + cut + 1 + lead + (quoted ? 1 : 0),
    };
  }
  if (value.startsWith('{') || value.startsWith('|') || value.startsWith('>')) return null;
  const quoted = /^["']/.test(value);
  return { kind: 'value', path: valuePath, prefix: value.slice(quoted ? 1 : 0), fromColumn: valueStart + (quoted ? 1 : 0) };
}
