/**
 * Templates are checked at compile time for variables that cannot exist (`{{ totl }}`), and for members a
 * value cannot have (`total.amout`, `doc.title.amount`), so a typo is a save error with its place instead of
 * a rule that fails on its first run or a `{% if %}` that is quietly false. Liquid's static analysis leaves
 * out loop variables and `assign`/`capture` names, so only the template's free names are checked.
 */
import { analyzeSync } from 'liquidjs';
import type { ExtractionType } from './model.js';
import { DOCUMENT_FIELDS } from './rule-schema.js';
import { RuleCompileError, type RulePath } from './rule-errors.js';
import type { CompiledTemplate } from './templates.js';
import { nearestNames } from './nearest-names.js';

/** What an extracted value is, so its members can be checked: its type, and a list for `pick: all`. */
export interface ValueShape {
  type: ExtractionType;
  list: boolean;
}

/** The extracted values a template may read, by name. */
export type KnownValues = ReadonlyMap<string, ValueShape>;

/** The shape of what a template reads, as far as members go. `custom`: a custom field, whose type the engine may not know. */
type Shape =
  'text' | 'number' | 'bool' | 'money' | 'custom' | 'open' | { list: Shape } | { record: Record<string, Shape> };

const DOC_FIELD_SHAPES: Record<string, Shape> = {
  id: 'number',
  archive_serial_number: 'number',
  page_count: 'number',
  tags: { list: 'text' },
  notes: { list: 'text' },
};
const DOC_SHAPE: Shape = {
  record: {
    ...Object.fromEntries(DOCUMENT_FIELDS.map((f) => [f, DOC_FIELD_SHAPES[f] ?? 'text'])),
    id: 'number',
    custom_fields: 'open',
    permissions: {
      record: {
        view: { record: { users: { list: 'text' }, groups: { list: 'text' } } },
        change: { record: { users: { list: 'text' }, groups: { list: 'text' } } },
      },
    },
  },
};
const RULE_SHAPE: Shape = { record: { id: 'text', description: 'text', file: 'text' } };

const TYPE_SHAPES: Record<ExtractionType, Shape> = {
  string: 'text',
  date: 'text',
  int: 'number',
  number: 'number',
  money: 'money',
  bool: 'bool',
};

function shapeOf(v: ValueShape): Shape {
  return v.list ? { list: TYPE_SHAPES[v.type] } : TYPE_SHAPES[v.type];
}

/** The shape one member further in, or null when the value cannot have that member. */
function member(shape: Shape, key: string | number): Shape | null {
  const index = typeof key === 'number' || key === 'first' || key === 'last';
  if (shape === 'open') return 'open';
  if (typeof shape === 'object' && 'list' in shape) return key === 'size' ? 'number' : index ? shape.list : null;
  if (typeof shape === 'object')
    return Object.prototype.hasOwnProperty.call(shape.record, key) ? shape.record[key as string] : null;
  if (shape === 'text') return key === 'size' ? 'number' : null;
  if (shape === 'money') return key === 'amount' ? 'number' : key === 'currency' ? 'text' : null;
  // A custom field: money has amount and currency, text and lists (document links, multi-select) size, first, last.
  if (shape === 'custom')
    return key === 'amount'
      ? 'number'
      : key === 'currency'
        ? 'text'
        : key === 'size'
          ? 'number'
          : index
            ? 'open'
            : null;
  return null;
}

function offers(shape: Shape): string {
  if (typeof shape === 'object' && 'list' in shape) return 'it is a list: size, first, last or an index such as [0]';
  if (typeof shape === 'object') return `it has ${Object.keys(shape.record).join(', ')}`;
  switch (shape) {
    case 'text':
      return 'it is text: only size';
    case 'money':
      return 'it is money: amount, currency';
    case 'custom':
      return 'a custom field value has amount, currency (money), or size, first, last (text and lists)';
    case 'number':
      return 'it is a number, which has no members';
    case 'bool':
      return 'it is true or false, which has no members';
    default:
      return '';
  }
}

/** What `now` and the context names are, member-wise; `vars` is open (a test or `default:` may supply anything). */
const CONTEXT_SHAPES: Record<string, Shape> = {
  doc: DOC_SHAPE,
  vars: 'open',
  now: 'text',
  today: 'text',
  rule: RULE_SHAPE,
};
const CONTEXT_NAMES = Object.keys(CONTEXT_SHAPES);

/**
 * Throws a RuleCompileError at `path` when the template names a variable outside `doc`, `vars`, `now`,
 * `rule` and the extracted values, or a member its value cannot have.
 */
export function checkTemplateVariables(t: CompiledTemplate, extracted: KnownValues, path: RulePath): void {
  if (t.literal) return;
  const globals = analyzeSync(t.templates).globals;
  const names = [...extracted.keys()];
  for (const [name, uses] of Object.entries(globals)) {
    const where = uses[0]?.location ? ` (template line ${uses[0].location.row}, column ${uses[0].location.col})` : '';
    const value = extracted.get(name);
    if (!CONTEXT_NAMES.includes(name) && !value) {
      const known = [...names, ...CONTEXT_NAMES];
      const [hint] = nearestNames(name, known, 1);
      throw new RuleCompileError(
        path,
        `template names "${name}"${where}, which does not exist${hint ? `; did you mean "${hint}"?` : '.'} Available: ${known.join(', ')}${names.length ? '' : ' (this rule extracts no values here)'}`,
      );
    }
    for (const use of uses) {
      const at = use.location ? ` (template line ${use.location.row}, column ${use.location.col})` : '';
      let shape: Shape = value ? shapeOf(value) : CONTEXT_SHAPES[name];
      const walked: string[] = [name];
      for (const [i, segment] of use.segments.slice(1).entries()) {
        // A computed member (`doc.custom_fields[name]`) cannot be checked here.
        if (typeof segment !== 'string' && typeof segment !== 'number') break;
        // Under doc.custom_fields any name may follow; what comes after it is a custom field value.
        const next = name === 'doc' && i === 1 && walked[1] === 'custom_fields' ? 'custom' : member(shape, segment);
        if (next === null) throw memberError(name, walked, segment, shape, at, path);
        walked.push(String(segment));
        shape = next;
      }
    }
  }
}

function memberError(
  name: string,
  walked: string[],
  segment: string | number,
  shape: Shape,
  at: string,
  path: RulePath,
): RuleCompileError {
  const whole = [...walked, segment].join('.');
  // The first level of doc, rule and now keeps its old wording ("doc has title, content, …").
  if (walked.length === 1 && name !== 'doc' && name !== 'rule' && name !== 'now' && name !== 'today') {
    return new RuleCompileError(
      path,
      `template names "${whole}"${at}, which does not exist: ${name} is ${describeShape(shape)}`,
    );
  }
  const fields = typeof shape === 'object' && 'record' in shape ? Object.keys(shape.record) : [];
  const [hint] =
    typeof segment === 'string'
      ? nearestNames(segment, fields.length ? fields : ['amount', 'currency', 'size', 'first', 'last'], 1)
      : [];
  const offer =
    walked.length === 1 && (name === 'now' || name === 'today')
      ? `; ${name} is a date text (format it with | date)`
      : fields.length
        ? `; ${walked.join('.')} has ${fields.join(', ')}`
        : `; ${walked.join('.')}: ${offers(shape)}`;
  return new RuleCompileError(
    path,
    `template names "${whole}"${at}, which does not exist${hint ? ` (did you mean "${[...walked, hint].join('.')}"?)` : ''}${offer}`,
  );
}

function describeShape(shape: Shape): string {
  if (typeof shape === 'object' && 'list' in shape) return 'a list (size, first, last, [0])';
  if (shape === 'money') return 'money (amount, currency)';
  if (shape === 'text') return 'text (size)';
  if (shape === 'number') return 'a number, which has no members';
  if (shape === 'bool') return 'true or false, which has no members';
  return 'a value';
}
