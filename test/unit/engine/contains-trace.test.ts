import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyDocument } from '../../../server/engine/engine.js';
import { run } from './helpers.js';

const long = `${'Sehr geehrte Damen und Herren, '.repeat(20)}hiermit erhalten Sie die 2. Mahnung zu Rechnung 4711. ${'Mit freundlichen Grüßen. '.repeat(10)}`;
const doc = { ...emptyDocument(), content: long, tags: ['Rechnung'] };

test('contains in a long text shows where the word was found, with the text around it', () => {
  const line = run(doc, [{ id: 'r', when: { content: { contains: 'mahnung' } } }]).results[0].conditions[0];
  assert.equal(line.result, true);
  const at = long.toLowerCase().indexOf('mahnung') + 1;
  assert.equal(
    line.description,
    `content contains "mahnung" → true (found "mahnung" at character ${at.toLocaleString('en-US')} of ${long.length.toLocaleString('en-US')})`,
  );
  assert.equal(typeof line.actual, 'string');
  assert.match(line.actual as string, /^….*die 2\. Mahnung zu Rechnung 4711\..*…$/);
});

test('contains_any names the word it found and shows its place', () => {
  const line = run(doc, [{ id: 'r', when: { content: { contains_any: ['Kündigung', 'Mahnung'] } } }]).results[0]
    .conditions[0];
  assert.match(line.description, /→ true \(found "Mahnung" at character/);
  assert.match(line.actual as string, /2\. Mahnung zu/);
});

test('a short text, a list, and a miss keep showing what was seen', () => {
  const short = run({ ...doc, title: 'Mahnung 4711' }, [{ id: 'r', when: { title: { contains: 'Mahnung' } } }])
    .results[0].conditions[0];
  assert.equal(short.description, 'title contains "Mahnung" → true (saw "Mahnung 4711")');
  const list = run(doc, [{ id: 'r', when: { tags: { contains: 'rechnung' } } }]).results[0].conditions[0];
  assert.equal(list.description, 'tags contains "rechnung" → true (saw ["Rechnung"])');
  const miss = run(doc, [{ id: 'r', when: { content: { contains: 'Kündigung' } } }]).results[0].conditions[0];
  assert.equal(miss.result, false);
  assert.match(miss.description, /→ false \(saw "Sehr geehrte.*… \(\d+ characters\)"\)$/);
});
