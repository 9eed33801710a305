import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileRule,
  emptyDocument,
  evaluateRules,
  runRuleTests,
  type RuleDefinition,
  type RuleDocument,
} from '../../../server/engine/engine.js';
import { answersSource, questionKey, type QueryAnswer } from '../../../server/engine/document-queries.js';
import { NOW } from './helpers.js';

const doc = (over: Partial<RuleDocument>): RuleDocument => ({ ...emptyDocument(), id: 7, ...over });

const duplicates: RuleDefinition = {
  id: 'dup',
  extract: {
    twins: {
      query: 'count',
      where: { correspondent: '{{ doc.correspondent }}', title: '{{ doc.title }}' },
      default: 0,
    },
  },
  when: { check: 'twins > 0' },
  actions: [{ add_tags: 'Duplikat?' }],
};

function evaluate(def: RuleDefinition, document: RuleDocument, answers?: Record<string, QueryAnswer>) {
  return evaluateRules({
    document,
    rules: [{ compiled: compileRule(def), file: 'q.yml', vars: {} }],
    trigger: 'manual',
    now: NOW,
    ...(answers ? { queries: answersSource(answers) } : {}),
  });
}

test('an unanswered query ends the evaluation with the question, in names, leaving the document itself out', () => {
  const out = evaluate(duplicates, doc({ correspondent: 'ACME', title: 'Rechnung 4711' }), {});
  assert.deepEqual(out.results, []);
  assert.deepEqual(out.pendingQuery, {
    where: [
      { field: 'correspondent', op: 'equals', value: 'ACME' },
      { field: 'title', op: 'equals', value: 'Rechnung 4711' },
    ],
    order: { field: 'created', descending: false, present: false },
    exclude: 7,
  });
});

test('with its answer the rule runs, and the trace says which query and how many results', () => {
  const document = doc({ correspondent: 'ACME', title: 'Rechnung 4711' });
  const question = evaluate(duplicates, document, {}).pendingQuery;
  assert.ok(question);
  const out = evaluate(duplicates, document, {
    [questionKey(question)]: {
      total: 2,
      documents: [{ id: 3, title: 'Rechnung 4711', value: '2025-01-02' }],
      cached: true,
    },
  });
  assert.equal(out.pendingQuery, undefined);
  const r = out.results[0];
  assert.equal(r.status, 'matched', r.error ?? '');
  assert.deepEqual(out.changes.tags, ['Duplikat?']);
  assert.equal(
    r.conditions.find((c) => c.path === 'extract/twins')?.description,
    'extract twins: count of other documents where correspondent = "ACME" and title = "Rechnung 4711" → 2 (2 found, answer reused within this run)',
  );
});

test('a failed answer (the dms, or too many queries) is an error of the rule, never a quiet value', () => {
  const document = doc({ correspondent: 'ACME', title: 'x' });
  const question = evaluate(duplicates, document, {}).pendingQuery;
  assert.ok(question);
  const out = evaluate(duplicates, document, { [questionKey(question)]: { error: 'the dms failed: 502' } });
  assert.equal(out.results[0].status, 'error');
  assert.match(out.results[0].error ?? '', /query count of other documents where .* failed: the dms failed: 502/);
});

test('without a query source (a caller that cannot ask) the rule fails and says so', () => {
  const out = evaluate(duplicates, doc({ correspondent: 'ACME', title: 'x' }));
  assert.equal(out.results[0].status, 'error');
  assert.match(out.results[0].error ?? '', /cannot be answered here/);
});

test('a where value that renders empty asks nothing: no value (here the default 0)', () => {
  const out = evaluate(duplicates, doc({ correspondent: null, title: 'x' }), {});
  assert.equal(out.pendingQuery, undefined);
  assert.equal(out.results[0].status, 'not_matched');
  assert.match(out.results[0].conditions[0].description, /rendered empty, so nothing was asked .*using the default 0/);
});

test('dates in where are resolved from the run clock; the ASN becomes a number', () => {
  const def: RuleDefinition = {
    id: 'r',
    extract: {
      n: {
        query: 'count',
        where: { created: { gte: '-30d', lt: '{{ now | date: "%Y-%m-%d" }}' }, archive_serial_number: { gt: '10' } },
      },
    },
    actions: [{ set_title: '{{ n }}' }],
  };
  const q = evaluate(def, doc({}), {}).pendingQuery;
  assert.deepEqual(q?.where, [
    { field: 'created', op: 'gte', value: '2025-02-13' },
    { field: 'created', op: 'lt', value: '2025-03-15' },
    { field: 'archive_serial_number', op: 'gt', value: 10 },
  ]);
});

test('max reads the field, present only; first/last are the oldest/newest document by created', () => {
  const max = evaluate(
    { id: 'r', extract: { a: { query: 'max', field: 'custom_fields.Nr' } }, actions: [{ set_title: '{{ a }}' }] },
    doc({}),
    {},
  );
  assert.deepEqual(max.pendingQuery?.order, { field: 'custom_fields.Nr', descending: true, present: true });
  const last = evaluate(
    { id: 'r', extract: { a: { query: 'last' } }, actions: [{ set_title: '{{ a }}' }] },
    doc({}),
    {},
  );
  assert.deepEqual(last.pendingQuery?.order, { field: 'created', descending: true, present: false });
});

const compileError = (extract: RuleDefinition['extract']) => {
  try {
    compileRule({ id: 'r', extract, actions: [{ set_title: 'x' }] });
  } catch (err) {
    return (err as Error).message;
  }
  return 'compiled';
};

test('a query the dms cannot answer is a save error with its place', () => {
  assert.match(compileError({ a: { query: 'count', where: { notes: 'x' } } }), /a query cannot test "notes"/);
  assert.match(
    compileError({ a: { query: 'count', where: { content: { matches: 'x' } } } }),
    /cannot answer "matches" for content/,
  );
  assert.match(compileError({ a: { query: 'max' } }), /needs field/);
  assert.match(compileError({ a: { query: 'max', field: 'title' } }), /can sort by/);
  assert.match(compileError({ a: { query: 'count', type: 'string' } }), /decides its own type/);
  assert.match(compileError({ a: { query: 'count', regex: 'x' } }), /regex does not apply to a query/);
  assert.match(compileError({ a: { query: 'count', where: { title: '{{ totl }}' } } }), /totl/);
  assert.match(compileError({ a: { regex: 'x', where: { title: 'y' } } }), /field and where belong to a query/);
});

test('rule tests answer queries from their documents, as the dms would (case-insensitive names, itself left out)', () => {
  const compiled = compileRule({
    ...duplicates,
    tests: [
      {
        name: 'a twin',
        document: { id: 5, correspondent: 'ACME', title: 'Rechnung 4711' },
        documents: [
          { id: 3, correspondent: 'acme', title: 'RECHNUNG 4711' },
          { correspondent: 'ACME', title: 'other' },
        ],
        expect: { matched: true, changes: { tags: ['Duplikat?'] }, extracted: { twins: 1 } },
      },
      {
        name: 'only itself',
        document: { id: 5, correspondent: 'ACME', title: 'Rechnung 4711' },
        documents: [{ id: 5, correspondent: 'ACME', title: 'Rechnung 4711' }],
        expect: { matched: false },
      },
    ],
  });
  assert.deepEqual(
    runRuleTests(compiled, { now: NOW }).filter((o) => !o.ok),
    [],
  );
});

test('next ASN and document links from rule test documents', () => {
  const compiled = compileRule({
    id: 'r',
    extract: {
      last_asn: { query: 'max', field: 'archive_serial_number', default: 0 },
      case: { regex: 'AZ-(\\d+)', required: true },
      related: { query: 'ids', where: { 'custom_fields.Aktenzeichen': '{{ case }}' } },
    },
    actions: [
      { set_archive_serial_number: '{{ last_asn | plus: 1 }}' },
      { set_custom_fields: { Verknüpft: "{{ related | join: ',' }}" } },
    ],
    tests: [
      {
        document: { id: 9, content: 'Aktenzeichen AZ-7' },
        documents: [
          { id: 3, archive_serial_number: 41, custom_fields: { Aktenzeichen: '7' }, created: '2025-01-02' },
          { id: 4, archive_serial_number: 7, custom_fields: { Aktenzeichen: '7' }, created: '2024-01-02' },
          { id: 6, custom_fields: { Aktenzeichen: '8' } },
        ],
        expect: {
          matched: true,
          changes: { archive_serial_number: 42, custom_fields: { Verknüpft: '4,3' } },
          extracted: { related: [4, 3] },
        },
      },
    ],
  });
  assert.deepEqual(
    runRuleTests(compiled, { now: NOW }).filter((o) => !o.ok),
    [],
  );
});
