import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { fileIdOf, isRuleFilePath, parseRuleFilePath, pathOfFileId } from '../../../server/rules/file-names.js';

describe('rule file names', () => {
  it('accepts top-level files and one package folder', () => {
    const top = parseRuleFilePath('invoices.yml');
    assert.ok(isRuleFilePath(top));
    assert.deepEqual(top, { path: 'invoices.yml', name: 'invoices.yml', package: null, isVars: false });
    const pkg = parseRuleFilePath('finance/_vars.yml');
    assert.ok(isRuleFilePath(pkg));
    assert.deepEqual(pkg, { path: 'finance/_vars.yml', name: '_vars.yml', package: 'finance', isVars: true });
    assert.ok(isRuleFilePath(parseRuleFilePath('Verträge/miete.yaml')));
  });

  const refused: Array<[string, RegExp]> = [
    ['', /Give a file name/],
    ['../evil.yml', /not allowed/],
    ['..', /not allowed|one package/],
    ['a/../b.yml', /one package folder/],
    ['finance/../../x.yml', /one package folder/],
    ['/etc/passwd.yml', /absolute/],
    ['a/b/c.yml', /one package folder/],
    ['a\\b.yml', /not "\\"/],
    ['notes.txt', /\.yml or \.yaml/],
    ['.yml', /may not start with "\."/],
    ['.hidden.yml', /may not start with "\."/],
    ['nul\u0000.yml', /not allowed/],
    ['c:evil.yml', /not allowed/],
    ['finance/', /empty/],
    [' spaced.yml', /space/],
    [`${'x'.repeat(252)}.yml`, /255 bytes/],
  ];
  for (const [name, message] of refused) {
    it(`refuses ${JSON.stringify(name.slice(0, 40))}`, () => {
      const result = parseRuleFilePath(name);
      assert.ok(!isRuleFilePath(result), `${name} was accepted`);
      assert.match(result.problem, message);
    });
  }

  it('counts the 255-byte limit in UTF-8 bytes, not characters', () => {
    assert.ok(!isRuleFilePath(parseRuleFilePath(`${'ä'.repeat(126)}.yml`)));
    assert.ok(isRuleFilePath(parseRuleFilePath(`${'ä'.repeat(125)}.yml`)));
  });
});

describe('rule file ids', () => {
  it('are base64url of the relative path and decode back to it', () => {
    const id = fileIdOf('finance/invoices.yml');
    assert.equal(id, Buffer.from('finance/invoices.yml').toString('base64url'));
    assert.match(id, /^[A-Za-z0-9_-]+$/);
    assert.equal(pathOfFileId(id)?.path, 'finance/invoices.yml');
  });

  const hostile = [
    ['dot-dot', fileIdOf('../outside.yml')],
    ['nested dot-dot', fileIdOf('finance/../../outside.yml')],
    ['absolute', fileIdOf('/etc/passwd.yml')],
    ['backslash', fileIdOf('..\\outside.yml')],
    ['two folders', fileIdOf('a/b/c.yml')],
    ['not yaml', fileIdOf('secret.json')],
    ['percent-encoded dot-dot', '%2e%2e'],
    ['encoded slash', '..%2F..%2Fetc%2Fpasswd'],
    ['standard base64 padding', `${Buffer.from('a.yml').toString('base64')}=`],
    ['plus and slash alphabet', Buffer.from('a.yml?>').toString('base64')],
    ['empty', ''],
    ['plain dot-dot', '..'],
  ] as const;
  for (const [label, id] of hostile) {
    it(`refuses a ${label} id`, () => {
      assert.equal(pathOfFileId(id), null);
    });
  }

  it('refuses non-canonical encodings of a valid path', () => {
    const id = fileIdOf('a.yml'); // "YS55bWw"
    const lastChar = id[id.length - 1];
    const sibling = id.slice(0, -1) + (lastChar === 'w' ? 'x' : 'w');
    assert.notEqual(sibling, id);
    assert.equal(pathOfFileId(sibling), null);
  });
});

test('Windows device names and trailing dots are refused as file and package names', () => {
  for (const name of [
    'CON.yml',
    'nul.yml',
    'Aux.yaml',
    'com1.yml',
    'LPT1/rules.yml',
    'lpt9.backup.yml',
    'prn/x.yml',
    'finance./a.yml',
    'a.yml.',
    'pkg../a.yml',
  ]) {
    const parsed = parseRuleFilePath(name);
    assert.ok('problem' in parsed, `${name} must be refused`);
  }
  assert.match((parseRuleFilePath('nul.yml') as { problem: string }).problem, /Windows device name/);
  for (const name of ['console.yml', 'null.yml', 'lpt10.yml', 'comics/a.yml', 'auxiliary.yml']) {
    assert.ok('path' in parseRuleFilePath(name), `${name} is an ordinary name`);
  }
});
