import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSimulator, type Simulator } from '../../tools/paperless-sim/simulator.js';
import { startTestServer, tempDir, type TestServer, saveRuleFile } from '../helpers/test-server.js';
import { runRule, startReceiver, startSmtp } from './support/notify-kit.js';

const RULES = `
rules:
  - id: mail-archive
    on: [manual]
    actions:
      - notify: { to: office, title: "Archiv {{ doc.id }}", message: "Anbei {{ doc.title }}", attach: archive, when: always }
  - id: mail-original
    on: [manual]
    actions:
      - notify: { to: office, title: "Original {{ doc.id }}", message: "Anbei", attach: original, when: always }
`;

/** The attachments of a raw e-mail: file name and decoded bytes. */
function attachmentsOf(raw: string): Array<{ filename: string; contentType: string; content: Buffer }> {
  return raw
    .split(/\r\n--[^\r\n]+\r\n/)
    .filter((part) => /^Content-Disposition: attachment/im.test(part))
    .map((part) => {
      const split = part.indexOf('\r\n\r\n');
      const head = part.slice(0, split).replace(/\r\n\s+/g, ' ');
      return {
        filename: /filename="?([^";\r\n]+)/.exec(head)?.[1] ?? '',
        contentType: /^Content-Type: ([^;\r\n]+)/im.exec(head)?.[1] ?? '',
        content: Buffer.from(part.slice(split + 4).replace(/\r\n--[\s\S]*$/, ''), 'base64'),
      };
    });
}

describe('notify attach: the document as an e-mail attachment, downloaded for that send only', () => {
  let sim: Simulator;
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const downloads = () => sim.counts()['GET /api/documents/{id}/download/'] ?? 0;

  const run = (document: number, ruleId: string, dryRun?: boolean) => runRule(server, document, ruleId, dryRun);

  before(async () => {
    smtp = await startSmtp();
    receiver = await startReceiver();
    sim = await startSimulator();
    const rulesDir = tempDir('dms-rules-notify-attach-rules-');
    fs.writeFileSync(path.join(rulesDir, 'attach.yml'), RULES);
    const targets = {
      // 0.02 MB: 20,000 bytes, so a test document can be too large without moving megabytes around.
      office: { smtp: smtp.url, from: 'dms-rules@example.org', to: ['office@example.org'], attachment_max_mb: 0.02 },
      hook: { url: `${receiver.url}/hook` },
    };
    server = await startTestServer(
      { SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token, SVC_NOTIFY_TARGETS: JSON.stringify(targets) },
      { rulesDir },
    );
  });
  after(async () => {
    await server?.close();
    await sim?.close();
    await smtp?.close();
    await receiver?.close();
  });

  it('attach: archive sends the archived PDF under its Paperless file name; a dry run downloads nothing', async () => {
    const doc = sim.addDocument({ title: 'Mietvertrag', created: '2026-02-01', mime_type: 'image/jpeg' }).id;
    const before = downloads();
    const dry = await run(doc, 'mail-archive', true);
    assert.match(
      dry.actions[0].detail ?? '',
      /^would send to office: .* with the archive file attached \(when: always\)$/,
    );
    assert.equal(downloads(), before);
    assert.equal(smtp.mails.length, 0);

    const trace = await run(doc, 'mail-archive');
    assert.equal(trace.actions[0].status, 'applied', JSON.stringify(trace));
    assert.equal(downloads(), before + 1);
    const mail = smtp.mails.splice(0);
    assert.equal(mail.length, 1);
    assert.match(mail[0], new RegExp(`Subject: Archiv ${doc}`));
    const [file, ...more] = attachmentsOf(mail[0]);
    assert.equal(more.length, 0);
    assert.equal(file.filename, '2026-02-01 Mietvertrag.pdf');
    assert.equal(file.contentType, 'application/pdf');
    assert.match(file.content.toString(), new RegExp(`^%PDF-1.7\\n% archived PDF of document ${doc}: Mietvertrag`));
  });

  it('attach: original sends the file as uploaded (?original=true)', async () => {
    const doc = sim.addDocument({ title: 'Foto', created: '2026-02-02', mime_type: 'image/jpeg' }).id;
    await run(doc, 'mail-original');
    const [file] = attachmentsOf(smtp.mails.splice(0)[0]);
    assert.equal(file.filename, '2026-02-02 Foto.jpg');
    assert.equal(file.contentType, 'image/jpeg');
    assert.match(file.content.toString(), new RegExp(`^original file of document ${doc}: Foto`));
  });

  it("a file over the target's attachment_max_mb is not sent: the trace is an error that says so", async () => {
    const doc = sim.addDocument({ title: 'Scan', file_size: 30_000 }).id;
    const trace = await run(doc, 'mail-original');
    assert.equal(trace.status, 'error');
    assert.equal(trace.actions[0].status, 'failed');
    assert.equal(
      trace.actions[0].error,
      `notify to "office" not sent: the original file of document ${doc} is too large to attach (30 KB; the target allows 20 KB: attachment_max_mb in the settings)`,
    );
    assert.equal(smtp.mails.length, 0);
  });

  it('refuses at save an attach to an HTTP target, naming the line', async () => {
    const res = await saveRuleFile(
      server.url,
      'attach.yml',
      RULES.replace('to: office, title: "Original', 'to: hook, title: "Original'),
    );
    assert.equal(res.status, 422);
    assert.match(
      String(res.body.error),
      /line 10, column \d+: rule "mail-original": notify target "hook" is an HTTP target; attach needs an e-mail target/,
    );
  });
});
