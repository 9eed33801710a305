import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_RENDERED_CHARS } from '../../server/engine/templates.js';
import { MAX_RENDERED_VARS_CHARS } from '../../server/rules/validate-file.js';
import { call, login, startTestServer, type TestServer, WITH_EXAMPLES } from '../helpers/test-server.js';

const varsId = Buffer.from('_vars.yml').toString('base64url');

describe('bounded template output', () => {
  let server: TestServer;
  let cookie: string;
  const preview = (content: string) =>
    call(server.url, `/api/ui/rules/${varsId}/preview`, { cookie, method: 'POST', rawBody: content });

  before(async () => {
    server = await startTestServer({}, {}, WITH_EXAMPLES);
    cookie = await login(server.url);
  });
  after(() => server.close());

  it('the capture bomb: a doubling {% capture %} fails cleanly instead of answering megabytes', async () => {
    const doublings = Array(18).fill('{% capture s %}{{ s }}{{ s }}{% endcapture %}').join('');
    const res = await preview(`bomb: '{% assign s = "xx" %}${doublings}{{ s }}'\n`);
    assert.equal(res.status, 422, JSON.stringify(res.body).slice(0, 300));
    assert.match(String(res.body.error), new RegExp(`more than the limit of ${MAX_RENDERED_CHARS}`));
    assert.ok(JSON.stringify(res.body).length < 2000, 'the answer is an error message, not the text');
  });

  it('the 512 KB anchor bomb: one anchor used 90 times fails cleanly', async () => {
    const big = 'x'.repeat(400 * 1024);
    const yaml = `base: &big "${big}"\nmany: [${Array(90).fill('*big').join(', ')}]\n`;
    assert.ok(yaml.length <= 512 * 1024);
    const res = await preview(yaml);
    assert.equal(res.status, 422, JSON.stringify(res.body).slice(0, 300));
    assert.match(String(res.body.error), new RegExp(`more than the limit of ${MAX_RENDERED_VARS_CHARS}`));
  });

  it('ordinary vars still preview', async () => {
    const res = await preview(`company: ACME\nlabel: '{{ company }} {{ company }}'\n`);
    assert.equal(res.status, 200);
    assert.match(String(res.body.result), /label: ACME ACME/);
  });
});
