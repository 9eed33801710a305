import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { didYouMean, editDistance, nearestNames } from '../../../server/engine/nearest-names.js';

describe('did you mean', () => {
  it('counts insertions, deletions, substitutions and swapped neighbours', () => {
    assert.equal(editDistance('titel', 'title'), 1);
    assert.equal(editDistance('Betrg', 'Betrag'), 1);
    assert.equal(editDistance('corespondent', 'correspondent'), 1);
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('', 'abc'), 3);
  });

  it('suggests the nearest names, nearest first, ignoring letter case', () => {
    assert.deepEqual(nearestNames('Betrg', ['Betrag', 'Zahlungsstatus', 'Datum']), ['Betrag']);
    assert.deepEqual(nearestNames('corespondent', ['content', 'correspondent', 'created']), ['correspondent']);
    assert.deepEqual(nearestNames('STEUER', ['Steuer', 'Steuern']), ['Steuer', 'Steuern']);
  });

  it('allows fewer edits for short names, so a short typo never suggests an unrelated word', () => {
    assert.deepEqual(nearestNames('tax', ['tags', 'title']), []);
    assert.deepEqual(nearestNames('add', ['added', 'updated', 'manual']), ['added']);
    assert.deepEqual(nearestNames('ad_tags', ['add_tags', 'set_tags', 'remove_tags']), ['add_tags']);
    assert.deepEqual(nearestNames('set_tag', ['set_tags', 'set_title', 'add_tags']), ['set_tags']);
  });

  it('words a suggestion as a question, and says nothing when no name is near', () => {
    assert.equal(didYouMean('whenn', ['when', 'tests']), 'did you mean "when"?');
    assert.equal(didYouMean('Steuerr', ['Steuer', 'Steuern', 'Rechnung']), 'did you mean "Steuer" or "Steuern"?');
    assert.equal(didYouMean('zzz', ['when', 'tests']), '');
  });

  it("gives the template check's one nearest match, or none when nothing is near", () => {
    assert.deepEqual(nearestNames('totl', ['total', 'doc'], 1), ['total']);
    assert.deepEqual(nearestNames('abcdef', ['total'], 1), []);
  });
});
