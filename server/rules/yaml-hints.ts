import type { YAMLError } from 'yaml';
import type { FileProblem } from '../app-errors.js';
import { problemAt, type Position } from './file-problems.js';

/**
 * YAML syntax errors as a person can act on them. One slip (a missing `}`, a stray indent) makes the parser
 * report a cascade of errors further down that vanish once it is fixed; so only the first error is kept, with
 * a hint in rule-file terms, except duplicate keys and tab indents before it, which never cascade.
 */

/** Errors that stand alone: each is a real problem of its own line, and none of them confuses the parser. */
const INDEPENDENT = new Set(['DUPLICATE_KEY', 'TAB_AS_INDENT']);

export function yamlProblems(
  text: string,
  errors: readonly YAMLError[],
  at: (offset: number) => Position,
): FileProblem[] {
  const sorted = [...errors].sort((a, b) => a.pos[0] - b.pos[0]);
  const kept: YAMLError[] = [];
  for (const error of sorted) {
    kept.push(error);
    if (!INDEPENDENT.has(error.code)) break;
  }
  return kept.map((error) => {
    const { offset, message } = describe(text, error, at);
    const start = at(offset);
    const end = at(offset === error.pos[0] ? Math.max(error.pos[1], offset + 1) : offset + 1);
    const span = end.line === start.line ? end : { line: start.line, column: start.column + 1 };
    return problemAt({ ...start, endLine: span.line, endColumn: span.column }, `YAML syntax error: ${message}`);
  });
}

const raw = (error: YAMLError) => error.message.replace(/ at line \d+, column \d+$/, '');

function lineAt(text: string, offset: number): { start: number; text: string } {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const end = text.indexOf('\n', offset);
  return { start, text: text.slice(start, end === -1 ? text.length : end) };
}

/** `key: rest` with the rest quoted, in the quotes that need no escapes; null if it cannot be written so. */
function quotedLine(line: string): string | null {
  const m = /^(\s*(?:-\s+)?[^\s:#'"{[][^:#]*?):\s+(.*?)\s*$/.exec(line);
  if (!m) return null;
  const [key, value] = [m[1].trim().replace(/^-\s+/, ''), m[2]];
  if (!value.includes("'")) return `${key}: '${value}'`;
  if (!value.includes('"') && !value.includes('\\')) return `${key}: "${value}"`;
  return null;
}

function quoteHint(line: string): string {
  const fixed = quotedLine(line);
  return fixed ? `quote the value: ${fixed}` : 'quote the value';
}

/** The `{` or `[` that opened the flow collection still open at `until`, by a scan that skips quoted text. */
function unclosedBracket(text: string, until: number): number | null {
  const open: number[] = [];
  let quote: string | null = null;
  for (let i = 0; i < until; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote && !(quote === '"' && text[i - 1] === '\\')) quote = null;
      continue;
    }
    if (c === '#' && (i === 0 || /\s/.test(text[i - 1]))) {
      const end = text.indexOf('\n', i);
      i = end === -1 ? until : end;
      continue;
    }
    const before = text.slice(text.lastIndexOf('\n', i - 1) + 1, i);
    // Outside brackets, `{`/`[` opens a collection only where a value starts; `a{b` is plain text.
    const startsValue = open.length > 0 || /(^|[:-])\s*$/.test(before) || /^\s*$/.test(before);
    if ((c === '"' || c === "'") && (open.length > 0 || /(^|[:-])\s*$/.test(before))) quote = c;
    else if ((c === '{' || c === '[') && startsValue) open.push(i);
    else if ((c === '}' || c === ']') && open.length > 0) {
      const opener = open.pop()!;
      if ((text[opener] === '{') !== (c === '}')) return opener;
    }
  }
  return open.at(-1) ?? null;
}

function describe(
  text: string,
  error: YAMLError,
  at: (offset: number) => Position,
): { offset: number; message: string } {
  const offset = error.pos[0];
  const line = lineAt(text, offset);
  const rest = text.slice(offset, line.start + line.text.length);
  switch (error.code) {
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY':
      // `title: Rechnung: {{ ref }}`: a second ": " in a plain value; else a line indented deeper than its key.
      if (/:(\s|$)/.test(rest))
        return { offset, message: `a value containing ": " must be in quotes; ${quoteHint(line.text)}` };
      return {
        offset: text.indexOf('\n', offset) + 1 || offset,
        message:
          'this line is indented deeper than the key above it; keys of one mapping start in the same column (or the line above misses a ":" or a closing quote)',
      };
    case 'BAD_INDENT': {
      if (/end with a [}\]]/.test(error.message)) {
        const opener = unclosedBracket(text, offset);
        const close = /end with a ([}\]])/.exec(error.message)?.[1] ?? '}';
        if (opener !== null) {
          const seen = at(offset).line;
          const noticed = seen === at(opener).line ? '' : ` (noticed at line ${seen})`;
          return {
            offset: opener,
            message: `this ${text[opener]} is never closed${noticed}: add the ${text[opener] === '{' ? '}' : ']'} where it ends, or quote the value if the ${text[opener]} is meant as text`,
          };
        }
        return { offset, message: `a { or [ above is never closed: add the ${close} where it ends` };
      }
      return {
        offset,
        message:
          'this key does not start in the column of the other keys of its mapping: indent it with as many spaces as they have',
      };
    }
    case 'TAB_AS_INDENT':
      return { offset, message: 'this line is indented with a tab; YAML allows only spaces for indentation' };
    case 'DUPLICATE_KEY': {
      const key = /^[^:\n]*/.exec(rest)?.[0].trim() ?? '';
      return {
        offset,
        message: `the key "${key}" appears twice in one mapping; remove one or merge them`,
      };
    }
    case 'MISSING_CHAR': {
      const quote = /closing (["'])/.exec(error.message)?.[1];
      if (quote) {
        const opener = text.lastIndexOf(quote, offset - 1);
        return {
          offset: opener === -1 ? offset : opener,
          message: `this ${quote} is never closed: add the closing ${quote} at the end of the value`,
        };
      }
      if (/Comments must be separated/.test(error.message))
        return {
          offset,
          message: `${raw(error)}; put a space before the #, or ${quoteHint(line.text)} if the # is part of it`,
        };
      return { offset, message: raw(error) };
    }
    case 'BAD_DQ_ESCAPE': {
      // Regexes in double quotes: "\d+" is an unknown escape, not a digit class.
      const seq = /sequence (\\.)/.exec(error.message)?.[1] ?? '\\d';
      return {
        offset,
        message: `${raw(error)}: inside double quotes a backslash starts an escape; write the value in single quotes ('${seq}' keeps its backslash) or double the backslash ("\\${seq}")`,
      };
    }
    case 'BAD_ALIAS':
      return {
        offset,
        message: `${raw(error)}: a value starting with * or & is a YAML alias or anchor; ${quoteHint(line.text)}`,
      };
    case 'BAD_SCALAR_START':
      return { offset, message: `${raw(error)}; ${quoteHint(line.text)}` };
    case 'UNEXPECTED_TOKEN':
      if (/scalar at node end/.test(error.message))
        return {
          offset,
          message: `a value that starts with a quote, { or [ ends at its closing character; to write text around it, ${quoteHint(line.text)}`,
        };
      if (/block-seq-ind on same line/.test(error.message))
        return {
          offset,
          message:
            'a list cannot start on the line of its key: put each "- item" on a line of its own below the key, or write [a, b]',
        };
      return { offset, message: `${raw(error)}; look for a missing quote, colon or bracket` };
    default:
      return {
        offset,
        message: `${raw(error)}; look for a missing quote, colon or bracket on this line or the one above`,
      };
  }
}
