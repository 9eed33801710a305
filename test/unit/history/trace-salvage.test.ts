import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Trace } from '../../../server/engine/model.js';
import { openTraceStore } from '../../../server/history/trace-store.js';
import { createMemoryLogger } from '../../../server/log.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { makeTrace } from '../../helpers/trace-factory.js';

const all = { limit: 1000 };
const SEGMENT = 'traces-000001.json';

async function open(dir: string) {
  const logger = createMemoryLogger();
  const store = await openTraceStore({ dir, retention: 1000, logger, flushDelayMs: 60_000 });
  return { store, logger };
}

/** A history of `count` traces with a nested step each (salvage must not mistake one for a trace), written by the store. */
async function historyOf(count: number): Promise<{ dir: string; file: string; written: Trace[] }> {
  const dir = tempDir();
  const { store } = await open(dir);
  const written = Array.from({ length: count }, (_, i) =>
    makeTrace({
      document: i + 1,
      conditions: [
        {
          path: 'when/title',
          description: 'title contains "x"',
          field: 'title',
          operator: 'contains',
          expected: 'x',
          actual: `Größe {"id":"${i}"}`,
          result: true,
        },
      ],
    }),
  );
  store.append(written);
  await store.close();
  return { dir, file: path.join(dir, SEGMENT), written };
}

const ids = (traces: Trace[]) => traces.map((t) => t.id);
const asideFiles = (dir: string) => fs.readdirSync(dir).filter((f) => f.startsWith(`${SEGMENT}.corrupt-`));

describe('a damaged trace history file loses only the damaged traces', () => {
  it('torn mid-trace: every trace before the tear is kept and queryable, the torn rest moved aside', async () => {
    const { dir, file, written } = await historyOf(30);
    const bytes = fs.readFileSync(file);
    const cut = bytes.indexOf(`"id":"${written[20].id}"`) + 50;
    fs.truncateSync(file, cut);
    const tornLine = bytes.subarray(bytes.lastIndexOf('\n', cut) + 1, cut).toString();

    const { store, logger } = await open(dir);
    assert.deepEqual(ids(await store.query(all)), ids(written.slice(0, 20)).reverse());
    const aside = asideFiles(dir);
    assert.equal(aside.length, 1);
    assert.equal(fs.readFileSync(path.join(dir, aside[0]), 'utf8'), `${tornLine}\n`);
    assert.ok(
      logger.lines.some(
        (l) =>
          l.startsWith('warn') &&
          l.includes(`trace history file ${file}: 20 traces kept, 1 unreadable part moved aside to`),
      ),
      logger.lines.join('\n'),
    );

    // Written back whole: the next start reads it without a word, and new traces follow the kept ones.
    const next = makeTrace();
    store.append([next]);
    await store.close();
    const again = await open(dir);
    assert.deepEqual(ids(await again.store.query(all)), [next.id, ...ids(written.slice(0, 20)).reverse()]);
    assert.equal(again.logger.lines.filter((l) => l.includes('kept')).length, 0);
    await again.store.close();
  });

  it('a garbled line in the middle costs that one trace', async () => {
    const { dir, file, written } = await historyOf(10);
    const rows = fs.readFileSync(file, 'utf8').split('\n');
    const victim = rows.findIndex((l) => l.includes(`"id":"${written[4].id}"`));
    rows[victim] = `${rows[victim].slice(0, 12)}\u0000"}]{${rows[victim].slice(30)}`;
    fs.writeFileSync(file, rows.join('\n'));

    const { store, logger } = await open(dir);
    assert.deepEqual(ids(await store.query(all)), ids(written.filter((_, i) => i !== 4)).reverse());
    assert.ok(logger.lines.some((l) => l.includes('9 traces kept, 1 unreadable part')));
    assert.equal(fs.readFileSync(path.join(dir, asideFiles(dir)[0]), 'utf8'), `${rows[victim]}\n`);
    await store.close();
  });
});

describe('history files written before traces had a line each', () => {
  /** The compact single-line form earlier releases wrote. */
  const legacy = (traces: Trace[]) => JSON.stringify({ version: 1, traces });

  it('load as they are', async () => {
    const dir = tempDir();
    const written = Array.from({ length: 5 }, () => makeTrace());
    fs.writeFileSync(path.join(dir, SEGMENT), legacy(written));
    const { store, logger } = await open(dir);
    assert.deepEqual(ids(await store.query(all)), ids(written).reverse());
    assert.deepEqual(
      logger.lines.filter((l) => !l.startsWith('info')),
      [],
    );
    await store.close();
  });

  it('torn: every trace before the tear is kept', async () => {
    const dir = tempDir();
    const written = Array.from({ length: 12 }, () => makeTrace());
    const text = legacy(written);
    fs.writeFileSync(path.join(dir, SEGMENT), text.slice(0, text.indexOf(`"id":"${written[9].id}"`) + 30));
    const { store } = await open(dir);
    assert.deepEqual(ids(await store.query(all)), ids(written.slice(0, 9)).reverse());
    assert.equal(asideFiles(dir).length, 1);
    await store.close();
  });

  it('garbled in the middle: the scan picks up again at the next whole trace', async () => {
    const dir = tempDir();
    const written = Array.from({ length: 8 }, () => makeTrace());
    const text = legacy(written);
    const at = text.indexOf(`"id":"${written[3].id}"`);
    // A stray quote flips every later string boundary for a naive scan.
    fs.writeFileSync(path.join(dir, SEGMENT), `${text.slice(0, at + 8)}"${text.slice(at + 9)}`);
    const { store } = await open(dir);
    assert.deepEqual(ids(await store.query(all)), ids(written.filter((_, i) => i !== 3)).reverse());
    await store.close();
  });
});
