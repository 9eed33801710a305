/** Short, person-readable renderings of values for trace descriptions. */
import { formatAmount, isMoneyValue } from './parse-number.js';

const MAX_TEXT = 120;

/** Long texts become their head plus the total length, so traces stay small but still say what was seen. */
export function shortenValue(v: unknown): unknown {
  if (typeof v === 'string' && v.length > MAX_TEXT)
    return `${v.slice(0, MAX_TEXT)}… (${v.length.toLocaleString('en-US')} characters)`;
  if (Array.isArray(v))
    return v.length > 20 ? [...(v as unknown[]).slice(0, 20), `… (${v.length} items)`] : [...(v as unknown[])];
  if (v && typeof v === 'object') return { ...v };
  return v;
}

export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing (not set)';
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(describeValue).join(', ')}]`;
  // Money reads as people write it ("EUR 84.37"), the way the UI shows it, never as {"amount":…}.
  if (isMoneyValue(v)) return v.currency ? `${v.currency} ${formatAmount(v.amount)}` : formatAmount(v.amount);
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** The matched text with some of the text on either side of it, so a trace shows where a word or a regex hit. */
export function textAround(text: string, index: number, length: number): string {
  const start = Math.max(0, index - MATCH_CONTEXT);
  const end = Math.min(text.length, index + length + MATCH_CONTEXT);
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}
const MATCH_CONTEXT = 50;
