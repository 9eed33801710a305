import type { DmsNamedObject, DmsVocabulary } from '../../dms/types.js';
import type { ActionName, Condition, FieldTest, OperatorTest } from '../../engine/model.js';
import { ACTION_FIELDS } from '../pipeline/trace-outcome.js';

/**
 * Translates a rule's `when` into Paperless list filters (paperless-api.md §4.4) that narrow a job's scan.
 * The one law: a prefilter may let through documents the rule does not match, but must never drop one it
 * would match. So only conditions that every match must satisfy (the top-level `all` chain) are used, and
 * only operators whose dms filter is a superset of the engine's test; everything else is left to the engine.
 */
export function prefilterFor(
  when: Condition | undefined,
  vocabulary: DmsVocabulary,
  now: Date,
  options: { writes?: ReadonlySet<string> } = {},
): Record<string, string> {
  const filters: Record<string, string> = {};
  if (when) for (const c of conjuncts(when)) addCondition(filters, c, vocabulary, now);
  // A filter on a field the job itself writes would shrink the result set under the pager, shifting
  // later pages so documents are skipped: a real run filters only on what it leaves alone.
  for (const name of Object.keys(filters)) {
    const field = name.split('__')[0];
    if (field === 'modified' || options.writes?.has(field)) delete filters[name];
  }
  return filters;
}

/**
 * Whether `prefilterFor` would map names of the dms to ids for this `when` (tags, correspondent, document type,
 * storage path in the top-level `all` chain): such a prefilter needs the dms's names as they are now, before the
 * first page; any other is built from the rule alone.
 */
export function prefilterNeedsNames(when: Condition | undefined): boolean {
  if (!when) return false;
  return conjuncts(when).some((c) => {
    const keys = Object.keys(c);
    if (keys.length !== 1) return false;
    const key = keys[0];
    if (key === 'not') return 'tags' in (c as { not: Condition }).not;
    return key === 'tags' || key in RELATIONS;
  });
}

/** The document fields a rule's actions may change (for `prefilterFor`'s `writes`). */
export function fieldsWrittenBy(actions: ReadonlyArray<Record<string, unknown>> | undefined): Set<string> {
  const out = new Set<string>();
  for (const action of actions ?? [])
    for (const key of Object.keys(action))
      if (key in ACTION_FIELDS) out.add(ACTION_FIELDS[key as Exclude<ActionName, 'notify'>]);
  return out;
}

function conjuncts(c: Condition): Condition[] {
  if ('all' in c && Array.isArray(c.all) && Object.keys(c).length === 1) return c.all.flatMap(conjuncts);
  return [c];
}

const RELATIONS = {
  correspondent: 'correspondents',
  document_type: 'document_types',
  storage_path: 'storage_paths',
} as const;
const TEXT_FIELDS = new Set(['title', 'content']);
const DATE_FIELDS: Record<string, { gte: string; lte: string }> = {
  created: { gte: 'created__gte', lte: 'created__lte' },
  added: { gte: 'added__date__gte', lte: 'added__date__lte' },
  modified: { gte: 'modified__date__gte', lte: 'modified__date__lte' },
};

function addCondition(filters: Record<string, string>, c: Condition, vocab: DmsVocabulary, now: Date): void {
  const keys = Object.keys(c);
  if (keys.length !== 1) return;
  const key = keys[0];
  const test = (c as Record<string, unknown>)[key];
  if (key === 'not') {
    // not { tags: { any: [...] } } is the common "not yet processed" guard: tags__id__none.
    const inner = test as Condition;
    const innerTest = (inner as Record<string, unknown>).tags;
    if (Object.keys(inner).length === 1 && isOperator(innerTest) && onlyKeys(innerTest, ['any', 'case_sensitive'])) {
      const ids = tagIds(innerTest.any, vocab, innerTest.case_sensitive === true);
      if (ids?.length) set(filters, 'tags__id__none', ids.join(','));
    }
    return;
  }
  if (key === 'all' || key === 'any') return;
  if (key === 'tags') return addTags(filters, test as FieldTest, vocab);
  if (key in RELATIONS) return addRelation(filters, key as keyof typeof RELATIONS, test as FieldTest, vocab);
  if (TEXT_FIELDS.has(key)) return addText(filters, key, test as FieldTest);
  if (key in DATE_FIELDS) return addDate(filters, DATE_FIELDS[key], test as FieldTest, now);
}

function addTags(filters: Record<string, string>, test: FieldTest, vocab: DmsVocabulary): void {
  if (!isOperator(test)) return;
  const exact = test.case_sensitive === true;
  if (test.all !== undefined) {
    // Every name must be one known tag: an unknown name means no match at all, which the engine will decide.
    const names = list(test.all);
    const ids = names.map((n) => unique(vocab.tags, n, exact));
    if (names.length && ids.every((id) => id !== undefined)) set(filters, 'tags__id__all', ids.join(','));
  }
  if (test.any !== undefined) {
    const ids = tagIds(test.any, vocab, exact);
    if (ids?.length) set(filters, 'tags__id__in', ids.join(','));
  }
  if (test.none !== undefined) {
    const ids = tagIds(test.none, vocab, exact);
    if (ids?.length) set(filters, 'tags__id__none', ids.join(','));
  }
}

/** Every tag id any of the names could mean (unknown names are dropped); undefined when a name is a template. */
function tagIds(value: string | string[] | undefined, vocab: DmsVocabulary, exact: boolean): number[] | undefined {
  const names = list(value);
  if (names.some(isTemplate)) return undefined;
  return [...new Set(names.flatMap((n) => matching(vocab.tags, n, exact).map((t) => t.id)))];
}

function addRelation(
  filters: Record<string, string>,
  field: keyof typeof RELATIONS,
  test: FieldTest,
  vocab: DmsVocabulary,
): void {
  const objects = vocab[RELATIONS[field]];
  let names: unknown[];
  let exact = false;
  if (test === null || typeof test === 'string') names = [test];
  else if (isOperator(test) && onlyKeys(test, ['equals', 'case_sensitive']))
    [names, exact] = [[test.equals ?? null], test.case_sensitive === true];
  else if (isOperator(test) && onlyKeys(test, ['in', 'case_sensitive']) && Array.isArray(test.in))
    [names, exact] = [test.in, test.case_sensitive === true];
  else return;
  if (names.length === 1 && names[0] === null) return set(filters, `${field}__isnull`, 'true');
  if (names.some((n) => typeof n !== 'string' || isTemplate(n))) return;
  const ids = [...new Set(names.flatMap((n) => matching(objects, n as string, exact).map((o) => o.id)))];
  // No known object with that name: nothing can match, but let the engine say so in its traces.
  if (ids.length === 0) return;
  set(filters, `${field}__id__in`, ids.join(','));
}

function addText(filters: Record<string, string>, field: string, test: FieldTest): void {
  if (!isOperator(test)) return;
  const ops: Array<[keyof OperatorTest, string]> = [
    ['contains', 'icontains'],
    ['starts_with', 'istartswith'],
    ['ends_with', 'iendswith'],
  ];
  for (const [op, lookup] of ops) {
    const value = test[op];
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    const needle = String(value);
    // The database's case folding is ASCII-only on SQLite: only plain ASCII needles are sure supersets.
    if (needle === '' || isTemplate(needle) || !/^[\x20-\x7e]+$/.test(needle)) continue;
    set(filters, `${field}__${lookup}`, needle);
  }
}

function addDate(
  filters: Record<string, string>,
  names: { gte: string; lte: string },
  test: FieldTest,
  now: Date,
): void {
  if (!isOperator(test)) return;
  // Widened by a day each way so time zones and the engine's own date handling can never be narrower.
  const lower = [test.gt, test.gte].map((v) => dateOf(v, now)).filter((d): d is Date => d !== undefined);
  const upper = [test.lt, test.lte].map((v) => dateOf(v, now)).filter((d): d is Date => d !== undefined);
  if (lower.length) set(filters, names.gte, isoDay(addDays(new Date(Math.max(...lower.map(Number))), -1)));
  if (upper.length) set(filters, names.lte, isoDay(addDays(new Date(Math.min(...upper.map(Number))), 1)));
}

/** `2024-03-01`, an ISO datetime, or a relative date such as `-30d`, `-2w`, `-6m`, `-1y`. */
export function dateOf(value: unknown, now: Date): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const rel = /^([+-]?\d{1,5})\s*([dwmy])$/.exec(value.trim());
  if (rel) {
    const n = Number(rel[1]);
    const d = new Date(now);
    if (rel[2] === 'd') d.setUTCDate(d.getUTCDate() + n);
    if (rel[2] === 'w') d.setUTCDate(d.getUTCDate() + 7 * n);
    if (rel[2] === 'm') d.setUTCMonth(d.getUTCMonth() + n);
    if (rel[2] === 'y') d.setUTCFullYear(d.getUTCFullYear() + n);
    return d;
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(value)) return undefined;
  const d = new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

function addDays(d: Date, n: number): Date {
  const out = new Date(d);
  out.setUTCDate(out.getUTCDate() + n);
  return out;
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/**
 * Two conditions on one filter: both must hold, so keeping the first stays a superset; "has all" and
 * "has none" lists combine exactly by union.
 */
function set(filters: Record<string, string>, name: string, value: string): void {
  const prior = filters[name];
  if (prior === undefined) filters[name] = value;
  else if (name === 'tags__id__all' || name === 'tags__id__none')
    filters[name] = [...new Set([...prior.split(','), ...value.split(',')])].join(',');
}

function isOperator(test: unknown): test is OperatorTest {
  return typeof test === 'object' && test !== null && !Array.isArray(test);
}

function onlyKeys(test: OperatorTest, allowed: string[]): boolean {
  return Object.keys(test).every((k) => allowed.includes(k)) && Object.keys(test).length > 0;
}

function list(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function isTemplate(s: string): boolean {
  return s.includes('{{') || s.includes('{%');
}

function matching<T extends DmsNamedObject>(objects: T[], name: string, exact: boolean): T[] {
  const want = exact ? name : name.toLowerCase();
  return objects.filter((o) => (exact ? o.name : o.name.toLowerCase()) === want);
}

function unique(objects: DmsNamedObject[], name: string, exact: boolean): number | undefined {
  if (isTemplate(name)) return undefined;
  const found = matching(objects, name, exact);
  return found.length === 1 ? found[0].id : undefined;
}
