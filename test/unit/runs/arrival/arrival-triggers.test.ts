import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { arrivalTriggers, type TriggerFacts } from '../../../../server/runs/arrival/arrival-triggers.js';
import type { OwnWrite } from '../../../../server/runs/echo/document-states.js';
import { dmsDocument } from '../../../helpers/dms-document.js';

const SINCE = Date.parse('2026-03-01T10:00:00Z');
const ADDED = '2026-03-01T12:00:00Z';

function facts(over: { addedHandled?: boolean; byLog?: boolean | null; own?: OwnWrite | null } = {}): TriggerFacts {
  return {
    states: { addedHandled: () => over.addedHandled ?? false, ownWrite: () => over.own ?? null },
    attribution: { editedAfterAdded: () => Promise.resolve(over.byLog ?? null) },
  };
}

describe('catch-up triggers from facts', () => {
  it('a document added before the cursor is updated', async () => {
    const doc = dmsDocument(1, { added: '2026-02-01T00:00:00Z', modified: ADDED });
    assert.deepEqual(await arrivalTriggers(doc, SINCE, facts()), ['updated']);
  });

  it('a new document nobody edited is added; one a person edited after it was added is added and updated', async () => {
    const doc = dmsDocument(1, { added: ADDED, modified: ADDED });
    assert.deepEqual(await arrivalTriggers(doc, SINCE, facts({ byLog: false })), ['added']);
    assert.deepEqual(await arrivalTriggers(doc, SINCE, facts({ byLog: true })), ['added', 'updated']);
  });

  it('a new document whose added arrival the service handled is updated when it is found changed', async () => {
    const doc = dmsDocument(1, { added: ADDED, modified: '2026-03-01T12:00:01Z' });
    assert.deepEqual(await arrivalTriggers(doc, SINCE, facts({ addedHandled: true })), ['updated']);
  });

  it('without the audit log, modified well after added is an edit; consumption saves and own writes are not', async () => {
    const soon = dmsDocument(1, { added: ADDED, modified: '2026-03-01T12:00:05Z' });
    assert.deepEqual(await arrivalTriggers(soon, SINCE, facts()), ['added']);
    const later = dmsDocument(1, { added: ADDED, modified: '2026-03-01T15:00:00Z' });
    assert.deepEqual(await arrivalTriggers(later, SINCE, facts()), ['added', 'updated']);
    // The service's own write moved `modified`; the save it read was consumption's.
    const own: OwnWrite = { readAt: '2026-03-01T12:00:02Z', fields: ['title'] };
    assert.deepEqual(await arrivalTriggers(later, SINCE, facts({ own })), ['added']);
  });
});
