import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { Trace } from '../../../server/engine/model.js';
import type { Config } from '../../../server/config.js';
import type { Simulator } from '../../../tools/paperless-sim/simulator.js';
import { API_TOKEN, call, startTestServer, tempDir, type TestServer } from '../../helpers/test-server.js';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * The app against `sim` with `rules` as its one rules file and the notify targets in config.yml, written as an
 * administrator writes them: `targets` are the YAML lines under `notify_targets:`.
 */
export async function startNotifyServer(
  sim: Simulator,
  rules: string,
  targets: string[],
  overrides: Partial<Config> = {},
): Promise<TestServer> {
  const dataDir = tempDir('dms-rules-notify-data-');
  const rulesDir = tempDir('dms-rules-notify-rules-');
  fs.writeFileSync(path.join(rulesDir, 'notify.yml'), rules);
  fs.writeFileSync(path.join(dataDir, 'config.yml'), ['notify_targets:', ...targets, ''].join('\n'));
  return startTestServer({ SVC_DMS_URL: sim.url, SVC_DMS_TOKEN: sim.token }, { dataDir, rulesDir, ...overrides });
}

/** Runs one rule on one document through the API and returns its trace. */
export async function runRule(server: TestServer, document: number, ruleId: string, dryRun = false): Promise<Trace> {
  const res = await call<{ traces: Trace[] }>(
    server.url,
    `/api/run?document=${document}&rule_id=${ruleId}&dry_run=${dryRun}`,
    { method: 'POST', token: API_TOKEN },
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.traces[0];
}

/** An HTTP notify target on 127.0.0.1 that keeps every request and answers `statusFor(path)` (200 by default). */
export async function startReceiver(
  statusFor: (path: string) => number = () => 200,
): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.statusCode = statusFor(req.url ?? '');
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A test SMTP server on 127.0.0.1 that keeps every message as its raw text. */
export async function startSmtp(): Promise<{ url: string; mails: string[]; close(): Promise<void> }> {
  const mails: string[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    size: 50_000_000,
    onData(stream, _session, done) {
      let text = '';
      stream.on('data', (c: Buffer) => (text += c.toString()));
      stream.on('end', () => {
        mails.push(text);
        done();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
    mails,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}
