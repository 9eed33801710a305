import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { API_TOKEN, call, startTestServer, type TestServer, WITH_EXAMPLES } from '../helpers/test-server.js';

interface RunBody {
  traces: Array<{
    rule_id: string;
    status: string;
    changes: Record<string, { from: unknown; to: unknown }>;
    error: string | null;
  }>;
}

describe('the example rules against the demo dms', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({}, {}, WITH_EXAMPLES);
  });
  after(() => server.close());

  const dryRun = async (document: number) => {
    const res = await call<RunBody>(server.url, `/api/run?document=${document}&dry_run=true`, {
      method: 'POST',
      token: API_TOKEN,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.traces.filter((t) => t.status === 'error'),
      [],
    );
    return Object.fromEntries(res.body.traces.filter((t) => t.status === 'matched').map((t) => [t.rule_id, t.changes]));
  };

  it('file the scanned Stadtwerke letter from the inbox', async () => {
    const matched = await dryRun(7);
    assert.deepEqual(matched['sender-stadtwerke-muenchen'], {
      correspondent: { from: null, to: 'Stadtwerke München' },
    });
    assert.deepEqual(matched['scan-title'], {
      title: { from: 'Scan_2025-03-10_081512', to: 'Stadtwerke München 2025-03-07' },
    });
    assert.deepEqual(matched['inbox-done'], { tags: { from: ['Posteingang'], to: ['rules-processed'] } });
  });

  it('fill in amount, invoice number and due date of the new Telekom bill', async () => {
    const matched = await dryRun(10);
    assert.deepEqual(matched['invoice-de'], {
      storage_path: { from: null, to: 'Finanzen' },
      'custom_fields.Betrag': { from: null, to: { amount: 39.95, currency: 'EUR' } },
      'custom_fields.Rechnungsnummer': { from: null, to: 'T-0417-2025-03' },
    });
    assert.deepEqual(matched['invoice-due-date'], {
      'custom_fields.Fällig am': { from: null, to: '2025-03-20' },
      'custom_fields.Zahlungsstatus': { from: null, to: 'offen' },
    });
    assert.deepEqual(matched['inbox-done'], {
      tags: { from: ['Posteingang', 'Rechnung'], to: ['Rechnung', 'rules-processed'] },
    });
  });
});
