import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createReportBuilder } from '../../../../server/runs/jobs/job-report.js';

describe('job report summary', () => {
  it('counts one document in the singular and more in the plural', () => {
    const one = createReportBuilder({});
    one.add(1, 'A', true, { title: { from: 'a', to: 'b' } });
    assert.match(
      one.finish({ dryRun: true, processed: 1, errors: 0, kind: 'job' }).summary,
      /^1 document read; 1 matched; 1 would change \(title 1\)/,
    );
    const two = createReportBuilder({});
    assert.match(
      two.finish({ dryRun: false, processed: 2, errors: 0, kind: 'revert' }).summary,
      /^2 documents checked/,
    );
  });
});
