/**
 * Comparing two fields of one document: `custom_fields.Bezahlt: { gte: { field: custom_fields.Betrag } }`,
 * `modified: { gt: { field: added } }`, `title: { equals: { field: original_file_name } }`.
 */
import type { RuleDocument } from './model.js';
import { RuleCompileError, type RulePath } from './rule-errors.js';
import { fieldKind, readField, type FieldKind } from './fields.js';
import { compareValues, equalsValue, type OpContext } from './condition-ops.js';
import { isMoneyValue, parseNumber } from './parse-number.js';
import { parseDateAuto } from './parse-date.js';
import { describeValue, shortenValue } from './describe.js';

export interface FieldRef {
  field: string;
}

const FIELD_REF_OPERATORS = ['equals', 'gt', 'gte', 'lt', 'lte'];

export function isFieldRef(v: unknown): v is FieldRef {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    Object.keys(v).length === 1 &&
    typeof (v as FieldRef).field === 'string'
  );
}

/** Throws when `op` cannot take another field, or the two fields cannot be compared. */
export function checkFieldRef(field: string, kind: FieldKind, op: string, ref: FieldRef, path: RulePath): void {
  if (!FIELD_REF_OPERATORS.includes(op))
    throw new RuleCompileError(
      path,
      `"${op}" cannot take another field; { field: … } works with ${FIELD_REF_OPERATORS.join(', ')}`,
    );
  const other = fieldKind(ref.field);
  if (!other)
    throw new RuleCompileError(
      [...path, 'field'],
      `unknown field "${ref.field}"; give a document field or custom_fields.<name>`,
    );
  if (op !== 'equals' && (other === 'text' || other === 'list'))
    throw new RuleCompileError(
      [...path, 'field'],
      `"${op}" compares numbers and dates; ${ref.field} is ${other === 'list' ? 'a list' : 'text'}`,
    );
  if (op !== 'equals' && (kind === 'text' || kind === 'list'))
    throw new RuleCompileError(
      path,
      `"${op}" compares numbers and dates; ${field} is ${kind === 'list' ? 'a list' : 'text'}`,
    );
}

const isDateText = (v: unknown): v is string => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v);

/** The other field's value as an operand: money as its amount, dates as their day. */
function comparable(v: unknown): number | string | null {
  if (typeof v === 'number') return v;
  if (isMoneyValue(v)) return v.amount;
  if (typeof v !== 'string') return null;
  if (/^\d{4}-\d{2}-\d{2}/.test(v)) return v.slice(0, 10);
  return parseDateAuto(v) ?? parseNumber(v);
}

export function applyFieldRef(
  op: string,
  other: string,
  v: unknown,
  c: OpContext,
  doc: RuleDocument,
): [boolean, string] {
  const theirs = readField(doc, other);
  const saw = `saw ${describeValue(shortenValue(v))} and ${other} ${describeValue(shortenValue(theirs))}`;
  if (op === 'equals') {
    const operand = Array.isArray(theirs) ? null : isMoneyValue(theirs) ? theirs.amount : theirs;
    // Either side a date: both compare by calendar day, whichever of the two carries a time.
    const otherKind = fieldKind(other);
    if ((otherKind === 'date' || c.kind === 'date') && isDateText(v) && isDateText(operand)) {
      const ok = v.slice(0, 10) === operand.slice(0, 10);
      return [ok, `${ok} (${saw}; compared by day)`];
    }
    const ok =
      Array.isArray(theirs) && Array.isArray(v)
        ? theirs.length === v.length && theirs.every((t) => equalsValue(v, t, c))
        : theirs !== undefined && operand !== null && equalsValue(v, operand, c);
    return [ok, `${ok} (${saw})`];
  }
  const operand = comparable(theirs);
  const cmp = operand === null ? null : compareValues(v, operand);
  if (cmp === null) return [false, `false (${saw}; they cannot be compared)`];
  const ok = op === 'gt' ? cmp > 0 : op === 'gte' ? cmp >= 0 : op === 'lt' ? cmp < 0 : cmp <= 0;
  return [ok, `${ok} (${saw})`];
}
