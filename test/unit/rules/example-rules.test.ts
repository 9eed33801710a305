import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DmsDocument } from '../../../server/dms/types.js';
import { createVocabularyIndex } from '../../../server/dms/vocabulary-index.js';
import { evaluateRules, type DocumentChanges } from '../../../server/engine/engine.js';
import { createMemoryLogger } from '../../../server/log.js';
import { EXAMPLE_RULES_DIR } from '../../../server/project-paths.js';
import { findUnknownNames } from '../../../server/rules/dms-names.js';
import { createRuleStore, type RuleStore } from '../../../server/rules/rules.js';
import { toRuleDocument } from '../../../server/runs/documents/rule-document.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { fixtureDocuments, fixtureVocabulary } from '../../helpers/paperless-fixtures.js';

const vocabulary = fixtureVocabulary();
const documents = fixtureDocuments();
const index = createVocabularyIndex(vocabulary);
const customFieldTypes = Object.fromEntries(vocabulary.custom_fields.map((f) => [f.name, f.data_type]));
const NOW = new Date('2025-03-10T09:00:00Z');

describe('the shipped example rules', () => {
  let store: RuleStore;

  before(async () => {
    const root = tempDir('dms-rules-examples-');
    store = await createRuleStore({
      rulesDir: path.join(root, 'rules'),
      dataDir: path.join(root, 'data'),
      examplesDir: EXAMPLE_RULES_DIR,
      logger: createMemoryLogger(),
      templateEnv: {},
      vocabulary: () => Promise.resolve(vocabulary),
      now: () => NOW,
      watch: false,
    });
  });
  after(() => store.close());

  /** A fixture document as a webhook run reads it: with its permissions (`full_perms=true`), which the lists lack. */
  function run(
    id: number,
    permissions: DmsDocument['permissions'] = { view: { users: [], groups: [] }, change: { users: [], groups: [] } },
  ): DocumentChanges {
    const listed = documents.find((d) => d.id === id);
    assert.ok(listed, `fixture document ${id}`);
    const dms = { ...listed, permissions };
    const rules = store.loadedRules().map((r) => ({ compiled: r.compiled, file: r.file, vars: r.vars }));
    const evaluation = evaluateRules({
      document: toRuleDocument(dms, index),
      rules,
      trigger: 'added',
      now: NOW,
      customFieldTypes,
    });
    assert.deepEqual(
      evaluation.results.filter((r) => r.status === 'error'),
      [],
      'no rule fails on the document',
    );
    return evaluation.changes;
  }

  it('load without errors, and every rule carries tests', () => {
    const { files } = store.listFiles();
    assert.ok(files.length >= 6);
    assert.deepEqual(
      files.filter((f) => f.error).map((f) => `${f.path}: ${f.error?.message}`),
      [],
    );
    for (const rule of store.loadedRules()) {
      assert.ok((rule.definition.tests ?? []).length > 0, `${rule.id} has tests`);
      assert.ok(rule.description, `${rule.id} has a description`);
    }
  });

  it('name only tags, correspondents, types, paths and fields the demo dms has', () => {
    const definitions = store.loadedRules().map((r) => r.definition);
    assert.deepEqual(findUnknownNames(definitions, index), []);
  });

  it('pass their own tests with the dms field types too', async () => {
    for (const file of store.listFiles().files.filter((f) => !f.is_vars)) {
      const { content } = await store.readFile(file.id);
      // saveFile runs every stage, including tests with the field types of the vocabulary.
      assert.deepEqual(await store.saveFile(file.id, content), { warnings: [] }, file.path);
    }
  });

  it('file a scanned letter in the inbox: sender, title, out of the inbox', () => {
    const changes = run(7);
    assert.equal(changes.correspondent, 'Stadtwerke München');
    assert.equal(changes.title, 'Stadtwerke München 2025-03-07');
    assert.deepEqual(changes.tags, ['rules-processed']);
  });

  it('complete a new phone bill: amount, invoice number, due date, status, storage path', () => {
    const changes = run(10);
    assert.equal(changes.storage_path, 'Finanzen');
    assert.deepEqual(changes.custom_fields?.Betrag, { amount: 39.95, currency: 'EUR' });
    assert.equal(changes.custom_fields?.Rechnungsnummer, 'T-0417-2025-03');
    assert.equal(changes.custom_fields?.Zahlungsstatus, 'offen');
    assert.match(String(changes.custom_fields?.['Fällig am']), /^2025-03-\d{2}$/);
    assert.deepEqual([...(changes.tags ?? [])].sort(), ['Rechnung', 'rules-processed']);
  });

  it('book a till receipt and note an auto-renewing contract', () => {
    const receipt = run(6);
    assert.deepEqual(receipt.custom_fields?.Betrag, { amount: 23.74, currency: 'EUR' });
    assert.equal(receipt.storage_path, 'Finanzen');
    assert.deepEqual(run(3).notes, ['Verlängert sich automatisch: Kündigungsfrist prüfen. (dms-rules)']);
  });

  it('share an owned contract with the Family group, once', () => {
    const shared = { view: { users: [], groups: [1] }, change: { users: [], groups: [] } };
    const contract = documents.find(
      (d) => d.document_type === index.idOf('document_types', 'Vertrag') && d.owner !== null,
    );
    assert.ok(contract, 'a fixture contract with an owner');
    assert.deepEqual(run(contract.id).permissions?.view.groups, ['Family']);
    assert.equal(run(contract.id, shared).permissions, undefined);
  });

  it('change nothing on documents that are already complete', () => {
    const shared = { view: { users: [], groups: [1] }, change: { users: [], groups: [] } };
    for (const id of [1, 2, 5, 8, 9, 12]) assert.deepEqual(run(id, shared), {}, `document ${id}`);
  });
});
