import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HEAP_GROWING_PERCENT, limitHeapGrowth } from '../../server/heap-growth.js';

describe('the heap growth limit the service starts with', () => {
  it('is set for the process when its command line chose none', () => {
    const set: string[] = [];
    limitHeapGrowth(['--enable-source-maps'], (flags) => set.push(flags));
    assert.deepEqual(set, [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
  });

  it('leaves a limit given on the command line as it is', () => {
    const set: string[] = [];
    limitHeapGrowth(['--heap-growing-percent=80'], (flags) => set.push(flags));
    limitHeapGrowth(['--heap_growing_percent=0'], (flags) => set.push(flags));
    assert.deepEqual(set, []);
  });
});
