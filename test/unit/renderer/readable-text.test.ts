import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withExtension } from '../../../renderer/src/file-name.js';
import { readableTimes } from '../../../renderer/src/value-format.js';

const formatTime = (iso: string) => new Date(iso).toLocaleString();

describe('service messages and names as a person reads and types them', () => {
  it('writes the ISO times inside a message as the reader writes times, and leaves the rest alone', () => {
    const iso = '2026-03-01T08:00:00.000Z';
    assert.equal(
      readableTimes(`changed since ${iso}; retries at ${iso}.`),
      `changed since ${formatTime(iso)}; retries at ${formatTime(iso)}.`,
    );
    assert.doesNotMatch(readableTimes(`once: ${iso}`), /T08:00/);
    assert.equal(readableTimes('due 2026-03-01, 3 documents'), 'due 2026-03-01, 3 documents');
  });

  it('completes a new file name without an extension to .yml, and keeps any other extension for the check to refuse', () => {
    assert.equal(withExtension('bills'), 'bills.yml');
    assert.equal(withExtension('finance/bills'), 'finance/bills.yml');
    assert.equal(withExtension('bills.yaml'), 'bills.yaml');
    assert.equal(withExtension('bills.txt'), 'bills.txt');
    assert.equal(withExtension(''), '');
  });
});
