/** What could be read back from a damaged JSON file holding one array of records. */
export interface Salvaged<T> {
  values: T[];
  /** The text that held no readable record (a damaged record, a cut-off end), in file order. */
  unreadable: string[];
}

/** Index just past the object or array that opens at `start`, or -1 when it does not close before `limit`. */
function valueEnd(text: string, start: number, limit: number): number {
  let depth = 0;
  let inString = false;
  for (let j = start; j < limit; j++) {
    const ch = text.charCodeAt(j);
    if (inString) {
      if (ch === 0x5c) j++;
      else if (ch === 0x22) inString = false;
      continue;
    }
    if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) depth++;
    else if (ch === 0x7d || ch === 0x5d) {
      depth--;
      if (depth === 0) return j + 1;
      if (depth < 0) return -1;
    }
  }
  return -1;
}

function parseAs<T>(raw: string, accept: (value: unknown) => value is T): T | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    return accept(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads every intact record of the array under `"key"` in a JSON document that may be cut short or have
 * damaged bytes in the middle (files written before records had a line each). After a damaged record the scan
 * resumes at the next `{` that follows a comma and opens a record `accept` takes, so damage costs the
 * records it touches, not the rest of the file. Returns null when the array itself cannot be found.
 */
export function salvageArray<T>(text: string, key: string, accept: (value: unknown) => value is T): Salvaged<T> | null {
  const opening = new RegExp(`"${key}"\\s*:\\s*\\[`).exec(text);
  if (!opening) return null;
  const values: T[] = [];
  const unreadable: string[] = [];
  let longest = 0;

  /** The next record that parses, searching from `from`; candidate scans are bounded so garbage stays linear-ish. */
  const resync = (from: number): { start: number; end: number; value: T } | null => {
    const bound = Math.max(65_536, 4 * longest);
    for (let p = text.indexOf('{', from); p >= 0; p = text.indexOf('{', p + 1)) {
      if (!/[,[]\s*$/.test(text.slice(Math.max(0, p - 16), p))) continue;
      const end = valueEnd(text, p, Math.min(text.length, p + bound));
      if (end < 0) continue;
      const value = parseAs(text.slice(p, end), accept);
      if (value !== undefined) return { start: p, end, value };
    }
    return null;
  };

  let i = opening.index + opening[0].length;
  while (i < text.length) {
    const ch = text[i];
    if (ch === ',' || /\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === ']') return { values, unreadable };
    const end = ch === '{' ? valueEnd(text, i, text.length) : -1;
    const value = end > 0 ? parseAs(text.slice(i, end), accept) : undefined;
    if (value !== undefined) {
      values.push(value);
      longest = Math.max(longest, end - i);
      i = end;
      continue;
    }
    const next = resync(i + 1);
    unreadable.push(text.slice(i, next?.start ?? text.length));
    if (!next) break;
    values.push(next.value);
    i = next.end;
  }
  return { values, unreadable };
}
