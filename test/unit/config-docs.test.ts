import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { CONFIG_KEYS } from '../../server/config.js';

test('docs/configuration.md documents every setting with its own description', () => {
  const doc = fs.readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
  for (const key of CONFIG_KEYS) {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${key.env}\` |`));
    assert.ok(row, `${key.env} is missing from docs/configuration.md`);
    assert.ok(row.includes(key.doc), `${key.env}: the description differs from server/config.ts`);
  }
});
