import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import type { Trace } from '../../server/engine/model.js';
import { API_TOKEN, call, startTestServer, tempDir, type TestServer } from '../helpers/test-server.js';
import { waitForEvent } from './support/jobs-kit.js';
import { arrivalsSettled } from '../helpers/arrivals.js';

// Text extracted from a document became the name of a storage path the service created, and
// Paperless renders a storage path as a Jinja template. With `create_missing: true` a document could send
// `POST /api/storage_paths/ {"name": "SP {{document.owner.password}}/../../x", "path": "SP {{…}}/../../x/{{ title }}"}`,
// and 50 documents created 50 storage paths.

const RULES = `rules:
  - id: sp-from-content
    when: { content: { contains: "SP-NAME:" } }
    extract:
      p: { from: content, regex: 'SP-NAME: (?<value>[^\\n]+)' }
    actions:
      - set_storage_path: "SP {{ p }}"
        create_missing: true
  - id: tag-from-content
    when: { content: { contains: "TAG-NAME:" } }
    extract:
      t: { from: content, regex: 'TAG-NAME: (?<value>[^\\n]+)' }
    actions:
      - add_tags: ["{{ t }}"]
        create_missing: true
  - id: type-from-content
    when: { content: { contains: "TYPE-NAME:" } }
    extract:
      d: { from: content, regex: 'TYPE-NAME: (?<value>[^\\n]+)' }
    actions:
      - set_document_type: "{{ d }}"
        create_missing: true
      - set_correspondent: "{{ d }}"
        create_missing: true
`;

const JOB_CAP = 7;

describe('document text never becomes a Paperless template or path (create_missing)', () => {
  let sim: Simulator;
  let server: TestServer;
  const names = (kind: 'storage_paths' | 'tags' | 'document_types' | 'correspondents') =>
    sim.store.objects[kind].map((o) => o.name);
  const run = async (document: number, rule: string) => {
    const res = await call<{ traces: Trace[] }>(
      server.url,
      `/api/run?document=${document}&rule_id=${rule}&dry_run=false`,
      { method: 'POST', token: API_TOKEN },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.traces[0];
  };
  const actionErrors = (trace: Trace) => trace.actions.map((a) => a.error ?? '').join(' | ');

  before(async () => {
    sim = await startSimulator();
    const rulesDir = tempDir('dms-rules-creations-');
    fs.writeFileSync(path.join(rulesDir, 'creations.yml'), RULES);
    server = await startTestServer(
      { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token, SVC_CREATE_MISSING_MAX_PER_JOB: String(JOB_CAP) },
      { rulesDir },
    );
  });
  after(async () => {
    await server.close();
    await sim.close();
  });

  it('refuses a storage path whose name carries template syntax and traversal from the document', async () => {
    const before = names('storage_paths').length;
    const doc = sim.addDocument({ title: 'Attack', content: 'SP-NAME: {{document.owner.password}}/../../x' });
    const trace = await run(doc.id, 'sp-from-content');
    assert.equal(
      names('storage_paths').length,
      before,
      `no storage path created: ${names('storage_paths').join(', ')}`,
    );
    assert.equal(trace.status, 'error');
    assert.match(
      actionErrors(trace),
      /Storage path "SP \{\{document\.owner\.password\}\}\/\.\.\/\.\.\/x" was not created: it holds template syntax/,
    );
    assert.equal(sim.store.getDocument(doc.id)?.storage_path, null, 'the document is not moved');
  });

  it('refuses each kind of template and traversal, for tags, document types and correspondents too', async () => {
    const hostile = [
      '{% for u in users %}x{% endfor %}',
      '{# hidden #}',
      'a/../../etc',
      '/etc/passwd',
      'C:\\Windows',
      'bell\u0007',
    ];
    for (const value of hostile) {
      const doc = sim.addDocument({ title: 'Attack', content: `TAG-NAME: ${value}\nTYPE-NAME: ${value}` });
      const tagTrace = await run(doc.id, 'tag-from-content');
      assert.match(actionErrors(tagTrace), /was not created: it holds/, `tag ${JSON.stringify(value)}`);
      const typeTrace = await run(doc.id, 'type-from-content');
      assert.match(
        actionErrors(typeTrace),
        /Document type .* was not created: it holds/,
        `type ${JSON.stringify(value)}`,
      );
      assert.match(
        actionErrors(typeTrace),
        /Correspondent .* was not created: it holds/,
        `correspondent ${JSON.stringify(value)}`,
      );
    }
    for (const kind of ['tags', 'document_types', 'correspondents'] as const) {
      const leaked = names(kind).filter(
        (n) => ['{{', '{%', '{#', '..', '\\', '\u0007'].some((bad) => n.includes(bad)) || n.startsWith('/'),
      );
      assert.deepEqual(leaked, [], `${kind} created from hostile text`);
    }
  });

  it('still creates a plain name from the document', async () => {
    const doc = sim.addDocument({ title: 'Fine', content: 'SP-NAME: Steuer 2024' });
    const trace = await run(doc.id, 'sp-from-content');
    assert.equal(trace.status, 'matched', JSON.stringify(trace));
    const created = sim.store.objects.storage_paths.find((o) => o.name === 'SP Steuer 2024');
    assert.ok(created, 'created');
    assert.equal(sim.store.getDocument(doc.id)?.storage_path, created.id);
  });

  it(`creates at most ${JOB_CAP} names in one job however many documents ask, and the trace says the cap was reached`, async () => {
    const before = names('storage_paths').length;
    const docs = Array.from(
      { length: 20 },
      (_, i) => sim.addDocument({ title: `Batch ${i}`, content: `SP-NAME: batch-${i}` }).id,
    );
    const res = await call(server.url, '/api/run?rule_id=sp-from-content&dry_run=false', {
      method: 'POST',
      token: API_TOKEN,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const job = await waitForEvent(server.url, res.body.event_id as number);
    const created = names('storage_paths').filter((n) => n.startsWith('SP batch-'));
    assert.equal(created.length, JOB_CAP, `created: ${created.join(', ')}`);
    assert.equal(names('storage_paths').length, before + JOB_CAP);
    const traces = (
      await call<{ traces: Trace[] }>(server.url, `/api/traces?event_id=${job.event_id}&limit=1000`, {
        token: API_TOKEN,
      })
    ).body.traces;
    const capped = traces.filter(
      (t) =>
        docs.includes(t.document) &&
        /create_missing is capped at 7 per job \(SVC_CREATE_MISSING_MAX_PER_JOB\)/.test(actionErrors(t)),
    );
    assert.equal(capped.length, 20 - JOB_CAP, 'every document past the cap says so in its trace');
  });
});

describe('many uploaded documents through the webhook', () => {
  it(`create at most ${JOB_CAP} names an hour, however many deliveries ask`, async () => {
    const sim = await startSimulator();
    const rulesDir = tempDir('dms-rules-creations-');
    fs.writeFileSync(path.join(rulesDir, 'creations.yml'), RULES);
    const server = await startTestServer(
      { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token, SVC_CREATE_MISSING_MAX_PER_JOB: String(JOB_CAP) },
      { rulesDir },
    );
    try {
      const before = sim.store.objects.storage_paths.length;
      const docs = Array.from(
        { length: 12 },
        (_, i) => sim.addDocument({ title: `Upload ${i}`, content: `SP-NAME: upload-${i}` }).id,
      );
      for (const id of docs) {
        const res = await call(server.url, '/api/webhook/dms', {
          body: { event: 'document_added', doc_id: String(id) },
          token: API_TOKEN,
        });
        assert.equal(res.status, 202, JSON.stringify(res.body));
      }
      await arrivalsSettled(server.url);
      assert.equal(sim.store.objects.storage_paths.length, before + JOB_CAP);
      const traces = (
        await call<{ traces: Trace[] }>(server.url, '/api/traces?rule_id=sp-from-content&limit=100', {
          token: API_TOKEN,
        })
      ).body.traces;
      const capped = traces.filter((t) =>
        /capped at 7 per hour for webhook and manual runs/.test(t.actions.map((a) => a.error ?? '').join(' ')),
      );
      assert.equal(capped.length, docs.length - JOB_CAP, 'each delivery past the cap says so in its trace');
    } finally {
      await server.close();
      await sim.close();
    }
  });
});
