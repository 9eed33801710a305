import assert from 'node:assert/strict';
import { it } from 'node:test';
import { latestOnly } from '../../../renderer/src/latest-only.js';

it('only the newest of overlapping loads may apply its answer, however the answers are ordered', async () => {
  const loads = latestOnly();
  const shown: string[] = [];
  const load = async (answer: Promise<string>): Promise<void> => {
    const current = loads.begin();
    const text = await answer;
    if (current.isLatest()) shown.push(text);
  };
  let answerFirst = (_: string): void => undefined;
  const first = load(new Promise((resolve) => (answerFirst = resolve)));
  await load(Promise.resolve('filtered'));
  answerFirst('unfiltered, late');
  await first;
  assert.deepEqual(shown, ['filtered']);
  await load(Promise.resolve('again'));
  assert.deepEqual(shown, ['filtered', 'again']);
});
