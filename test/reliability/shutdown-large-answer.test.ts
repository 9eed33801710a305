import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PAPERLESS_HEADERS, startHostilePaperless } from '../helpers/hostile-paperless.js';
import { startChildServer } from '../helpers/child-server.js';
import { API_TOKEN, call, tempDir } from '../helpers/test-server.js';

const RULES = 'rules:\n  - id: retitle\n    actions:\n      - set_title: "{{ doc.title }}!"\n';
const SENT_MB = 20;

test('SIGTERM while a large dms answer is being read ends the service with code 0 and cuts the read', async () => {
  let firstPartRead: () => void = () => undefined;
  const reading = new Promise<void>((resolve) => (firstPartRead = resolve));
  let cut: (endedByDms: boolean) => void = () => undefined;
  const readCut = new Promise<boolean>((resolve) => (cut = resolve));
  const fake = await startHostilePaperless({
    documents: 3,
    answerDocument(id, _req, res) {
      if (id !== 10) return false;
      // The start of a document whose text runs on: 20 MB now, the rest never (the dms hangs mid-answer).
      res.writeHead(200, PAPERLESS_HEADERS);
      res.once('close', () => cut(res.writableEnded));
      res.write(`{"id": 10, "title": "big", "content": "${'x'.repeat(SENT_MB * 1024 * 1024)}`, () => firstPartRead());
      return true;
    },
  });
  const dirs = { SVC_DATA_DIR: tempDir(), SVC_RULES_DIR: tempDir() };
  fs.writeFileSync(path.join(dirs.SVC_RULES_DIR, 'rules.yml'), RULES);
  const server = await startChildServer({ ...dirs, SVC_DMS_URL: fake.url, SVC_DMS_TOKEN: fake.token });
  try {
    const run = call(server.url, '/api/run?document=10&dry_run=true', { method: 'POST', token: API_TOKEN }).catch(
      (err: unknown) => err,
    );
    // The write callback fires once the service has taken most of the 20 MB off the socket: it is reading.
    await reading;
    // Only a hang trips this guard; a stop that merely takes its time on a loaded machine does not.
    let guard: NodeJS.Timeout | undefined;
    const hang = new Promise<'hung'>((resolve) => (guard = setTimeout(() => resolve('hung'), 120_000)));
    const exit = await Promise.race([server.kill('SIGTERM'), hang]);
    clearTimeout(guard);
    assert.notEqual(exit, 'hung', `the service did not exit after SIGTERM:\n${server.output()}`);
    assert.equal(exit, 0, server.output());
    assert.equal(await readCut, false, 'the service closed the dms connection before the dms finished the answer');
    await run;
  } finally {
    await server.kill('SIGKILL');
    await fake.close();
  }
});
