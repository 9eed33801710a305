// Heap held per document a burst wrote, by the write journal (a finished run), the echo records (an entry) and the
// trace history (a trace): `npx tsx --expose-gc bench/record-memory.ts [documents]`. JOURNAL_HEAP_SNAPSHOT=<file> also writes a heap
// snapshot once the journal's runs are held (`bench/heap-summary.ts` reads it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { createMemoryLogger } from '../server/log.js';
import { createDocumentStates } from '../server/runs/echo/document-states.js';
import { openDocumentTable } from '../server/runs/echo/document-table.js';
import { createLoopBreaker } from '../server/runs/echo/loop-breaker.js';
import { readValuesOf } from '../server/runs/journal/journal-records.js';
import { openWriteJournal } from '../server/runs/journal/write-journal.js';
import type { DmsDocument } from '../server/dms/types.js';
import type { Trace } from '../server/engine/model.js';
import { openTraceStore } from '../server/history/trace-store.js';

const count = Number(process.argv[2] ?? 10_000);
const { gc } = globalThis as { gc?: () => void };
if (!gc) throw new Error('run with --expose-gc');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'record-memory-'));
const journal = openWriteJournal({ file: path.join(dir, 'write-journal.jsonl'), logger: createMemoryLogger() });

/** A document as a bulk edit's delivery reads it: a few tags, a custom field, permissions (`full_perms`). */
const doc = (id: number) =>
  ({
    id,
    title: `Rechnung ${id} Stadtwerke`,
    content: 'x'.repeat(2000),
    correspondent: 3,
    document_type: 2,
    storage_path: null,
    tags: [1, 4, 7],
    created: '2024-03-01',
    modified: `2026-03-01T10:${String(id % 60).padStart(2, '0')}:00.123456+01:00`,
    added: '2024-03-02T10:00:00+01:00',
    archive_serial_number: null,
    owner: 2,
    custom_fields: [{ field: 1, value: 'abc' }],
    notes: [],
    permissions: { view: { users: [2], groups: [] }, change: { users: [2], groups: [1] } },
  }) as unknown as DmsDocument;

gc();
const before = process.memoryUsage().heapUsed;
for (let i = 0; i < count; i += 100) {
  const handles = await journal.begin(
    Array.from({ length: Math.min(100, count - i) }, (_, k) => ({
      dms: 'http://paperless.local:8000',
      doc: i + k + 1,
      event: 1000 + i + k,
      source: 'webhook',
      rules: ['burst-mark'],
      read: readValuesOf(doc(i + k + 1)),
      writes: [{ kind: 'tags' as const, add: [9], remove: [] }],
    })),
  );
  for (const handle of handles) {
    handle.outcome(0, { ok: true });
    handle.end('applied');
  }
}
gc();
const held = process.memoryUsage().heapUsed - before;
if (process.env.JOURNAL_HEAP_SNAPSHOT) writeHeapSnapshot(process.env.JOURNAL_HEAP_SNAPSHOT);
console.log(`${count} finished runs held: ${(held / 2 ** 20).toFixed(1)} MiB, ${Math.round(held / count)} B each`);
await journal.close();

// The echo records of as many documents, each written once (the loop breaker counts the write, the state is own).
const table = openDocumentTable({ file: path.join(dir, 'echo-ledger.json'), logger: createMemoryLogger() });
const states = createDocumentStates(table, () => false);
const loop = createLoopBreaker(table, { maxWrites: 5, windowMs: 3_600_000, now: Date.now });
gc();
const tableBefore = process.memoryUsage().heapUsed;
for (let id = 1; id <= count; id++) {
  // As a list page's JSON gives it: its own strings.
  const written = JSON.parse(JSON.stringify(doc(id))) as DmsDocument;
  loop.counted(id);
  states.adopt(written, { readAt: written.modified, fields: ['tags'] });
}
await table.persist();
gc();
const entries = process.memoryUsage().heapUsed - tableBefore;
console.log(`${count} echo records held: ${(entries / 2 ** 20).toFixed(1)} MiB, ${Math.round(entries / count)} B each`);
await table.close();

/** A burst delivery's trace (about 1.5 KB in memory): the rule's empty `when`, its tag change and action. */
const traceOf = (id: number): Trace =>
  JSON.parse(
    JSON.stringify({
      id: `0193f0a2-7c4e-7b10-9e2d-${String(id).padStart(12, '0')}`,
      at: new Date(Date.UTC(2026, 2, 1, 10) + id).toISOString(),
      duration_ms: 3,
      source: 'webhook',
      event_id: 1000 + id,
      document: id,
      rule_id: 'burst-mark',
      file: 'burst.yml',
      dry_run: false,
      status: 'matched',
      conditions: [{ path: 'when', description: 'no conditions: always matches', result: true }],
      extracted: {},
      changes: { tags: { from: ['Posteingang', 'Rechnung'], to: ['Posteingang', 'Rechnung', 'rules-processed'] } },
      actions: [{ path: 'actions/0', action: 'add_tags', status: 'applied', detail: 'rules-processed' }],
      error: null,
    }),
  ) as Trace;
const history = await openTraceStore({
  dir: path.join(dir, 'traces'),
  retention: 20_000,
  logger: createMemoryLogger(),
});
gc();
const historyBefore = process.memoryUsage();
for (let id = 1; id <= count; id += 100)
  history.append(Array.from({ length: Math.min(100, count + 1 - id) }, (_, k) => traceOf(id + k)));
await history.flush();
gc();
const historyAfter = process.memoryUsage();
const traces = historyAfter.heapUsed - historyBefore.heapUsed;
// The newest segment's encoded bytes are kept for its next rewrite: outside the heap, in buffers.
const bytes = historyAfter.arrayBuffers - historyBefore.arrayBuffers;
console.log(
  `${count} traces held: ${(traces / 2 ** 20).toFixed(1)} MiB, ${Math.round(traces / count)} B each;` +
    ` buffers ${(bytes / 2 ** 20).toFixed(1)} MiB`,
);
await history.close();
fs.rmSync(dir, { recursive: true, force: true });
