import '../../helpers/loopback-only.js';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { DmsError, DmsNotFoundError } from '../../../server/dms/dms-errors.js';
import { DmsFileTooLargeError, fileNameOf, readCapped } from '../../../server/dms/file-download.js';
import { createPaperlessClient } from '../../../server/dms/paperless-client.js';
import { startSimulator, type Simulator } from '../../../tools/paperless-sim/simulator.js';
import type { DmsClient } from '../../../server/dms/types.js';

describe('downloading a document file from the simulator over HTTP, as Paperless serves it', () => {
  let sim: Simulator;
  let dms: DmsClient;
  before(async () => {
    sim = await startSimulator();
    dms = createPaperlessClient({ url: sim.url, token: sim.token, retries: 0 });
  });
  after(async () => {
    await dms.close();
    await sim.close();
  });

  test('the archived PDF by default, the original with original=true, each with its public file name', async () => {
    const id = sim.addDocument({ title: 'Vertrag, neu', created: '2026-03-01', mime_type: 'image/png' }).id;
    const archive = await dms.downloadDocument(id, { original: false, maxBytes: 10_000 });
    assert.equal(archive.contentType, 'application/pdf');
    assert.equal(archive.filename, '2026-03-01 Vertrag_ neu.pdf');
    assert.match(archive.content.toString(), new RegExp(`^%PDF-1.7\\n% archived PDF of document ${id}`));
    const original = await dms.downloadDocument(id, { original: true, maxBytes: 10_000 });
    assert.equal(original.contentType, 'image/png');
    assert.equal(original.filename, '2026-03-01 Vertrag_ neu.png');
    assert.match(original.content.toString(), new RegExp(`^original file of document ${id}`));
  });

  test('a document without an archive version serves its original either way (serve_file)', async () => {
    const id = sim.addDocument({ title: 'Notiz', has_archive: false, mime_type: 'text/plain' }).id;
    const file = await dms.downloadDocument(id, { original: false, maxBytes: 10_000 });
    assert.equal(file.contentType, 'text/plain');
    assert.match(file.content.toString(), /^original file of document/);
  });

  test('a file over the limit is refused from its Content-Length before its body is read', async () => {
    const id = sim.addDocument({ title: 'Gross', file_size: 50_000 }).id;
    await assert.rejects(dms.downloadDocument(id, { original: true, maxBytes: 20_000 }), (err: unknown) => {
      assert.ok(err instanceof DmsFileTooLargeError);
      assert.equal(err.message, 'the file is 50 KB, over the limit of 20 KB for this download');
      return true;
    });
    assert.equal((await dms.downloadDocument(id, { original: true, maxBytes: 50_000 })).content.length, 50_000);
  });

  test('a missing document is not found; one the token may not view is refused', async () => {
    await assert.rejects(dms.downloadDocument(999_999, { original: false, maxBytes: 1000 }), DmsNotFoundError);
    const mine = sim.addDocument({ title: 'Privat', owner: 3 }).id;
    const ben = createPaperlessClient({ url: sim.url, token: sim.tokenFor('ben'), retries: 0 });
    try {
      await assert.rejects(ben.downloadDocument(mine, { original: false, maxBytes: 1000 }), (err: unknown) => {
        assert.ok(err instanceof DmsError);
        assert.equal(err.dmsStatus, 403);
        return true;
      });
    } finally {
      await ben.close();
    }
  });

  test('a body without Content-Length stops at the first chunk past the limit', async () => {
    let pulled = 0;
    const body = Readable.from(
      (function* () {
        for (let i = 0; i < 100; i++) {
          pulled++;
          yield Buffer.alloc(10_000);
        }
      })(),
    );
    await assert.rejects(readCapped(body, 15_000, null, 'GET /x/'), /larger than 15 KB, the limit/);
    assert.ok(pulled < 5, `read ${pulled} chunks`);
  });

  test('the file name comes from filename* first, and never carries a path', () => {
    assert.equal(fileNameOf(`attachment; filename="a.pdf"; filename*=utf-8''M%C3%A4rz.pdf`), 'März.pdf');
    assert.equal(fileNameOf('attachment; filename="../../etc/passwd"'), 'passwd');
    assert.equal(fileNameOf('attachment; filename=".."'), null);
    assert.equal(fileNameOf(undefined), null);
  });
});
