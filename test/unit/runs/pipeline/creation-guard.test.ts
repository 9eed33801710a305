import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCreationLimiter, unsafeCreation } from '../../../../server/runs/pipeline/creation-guard.js';

describe('names the service may create', () => {
  const refused: Array<[string, string, RegExp]> = [
    ['a Jinja expression', 'SP {{document.owner.password}}', /template syntax/],
    ['a Jinja statement', 'x {% for u in users %}{% endfor %}', /template syntax/],
    ['a Jinja comment', '{# x #}', /template syntax/],
    ['a ".." segment', 'SP a/../../x', /"\.\." path segment/],
    ['a bare ".."', '..', /"\.\." path segment/],
    ['a ".." after a backslash', 'a\\..', /"\.\." path segment|backslash/],
    ['a leading "/"', '/etc/passwd', /leading "\/"/],
    ['a backslash', 'C:\\Windows', /backslash/],
    ['a newline', 'two\nlines', /control character/],
    ['a NUL', 'nul\u0000', /control character/],
    ['a line separator', 'x\u2028y', /control character/],
  ];
  for (const [what, name, reason] of refused) {
    for (const kind of ['tags', 'correspondents', 'document_types', 'storage_paths'] as const) {
      it(`refuses ${what} in a ${kind} name`, () => assert.match(unsafeCreation(kind, name) ?? '', reason));
    }
  }

  it('refuses an old-style {placeholder} in a storage path name only (its name becomes part of its path)', () => {
    assert.match(unsafeCreation('storage_paths', 'SP {title}') ?? '', /\{placeholder\}/);
    assert.equal(unsafeCreation('tags', 'Team {A}'), null);
  });

  it('allows plain names, dots and slashes inside a name', () => {
    for (const name of ['Steuer 2024', 'Finanzen/Steuer', 'v1.2...', 'Müller & Söhne', 'a..b']) {
      assert.equal(unsafeCreation('storage_paths', name), null, name);
    }
  });

  it("allows the rule's own path template, but not one that climbs out", () => {
    assert.equal(unsafeCreation('storage_paths', 'Steuer', '{{ created_year }}/Steuer/{{ title }}'), null);
    assert.match(
      unsafeCreation('storage_paths', 'Steuer', '../{{ title }}') ?? '',
      /its path "\.\.\/\{\{ title \}\}" holds a "\.\." path segment/,
    );
    assert.match(unsafeCreation('storage_paths', 'Steuer', '/srv/{{ title }}') ?? '', /leading "\/"/);
  });
});

describe('how many names the service creates', () => {
  const limits = { perRun: 2, perJob: 3 };

  it('caps one run, counting a name once however often it is asked for', () => {
    const gate = createCreationLimiter(limits).forRun('manual', null);
    assert.equal(gate.admit('tags', 'a'), null);
    assert.equal(gate.admit('tags', 'A '), null, 'the same name again');
    assert.equal(gate.admit('correspondents', 'a'), null);
    assert.match(
      gate.admit('tags', 'b') ?? '',
      /Tag "b" was not created: create_missing is capped at 2 per run \(SVC_CREATE_MISSING_MAX_PER_RUN\)/,
    );
  });

  it('caps one job across its documents, and another job has its own budget', () => {
    const limiter = createCreationLimiter(limits);
    for (const name of ['a', 'b', 'c']) assert.equal(limiter.forRun('job', 7).admit('storage_paths', name), null);
    assert.equal(limiter.forRun('job', 7).admit('storage_paths', 'b'), null, 'a name the job already created');
    assert.match(
      limiter.forRun('job', 7).admit('storage_paths', 'd') ?? '',
      /capped at 3 per job \(SVC_CREATE_MISSING_MAX_PER_JOB\), and this job reached the cap/,
    );
    assert.equal(
      limiter.forRun('catchup', 9).admit('storage_paths', 'd'),
      null,
      'a catch-up is an event with its own budget',
    );
    assert.equal(limiter.forRun('job', 8).admit('storage_paths', 'd'), null);
  });

  it('caps webhook and manual runs together per hour, by the injected clock', () => {
    let now = 0;
    const limiter = createCreationLimiter(limits, () => now);
    for (const name of ['a', 'b', 'c']) assert.equal(limiter.forRun('webhook', 1).admit('tags', name), null);
    assert.match(
      limiter.forRun('manual', null).admit('tags', 'd') ?? '',
      /capped at 3 per hour for webhook and manual runs/,
    );
    now = 3_600_000;
    assert.equal(limiter.forRun('webhook', 2).admit('tags', 'd'), null, 'an hour later the budget is back');
  });
});
