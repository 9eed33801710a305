// The Paperless-ngx fixtures (test/fixtures/paperless, real wire shapes) as a vocabulary and documents.
import fs from 'node:fs';
import path from 'node:path';
import type { DmsDocument, DmsVocabulary } from '../../server/dms/types.js';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'paperless');

export const readFixture = (name: string): unknown => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8'));
const results = <T>(name: string): T[] => (readFixture(name) as { results: T[] }).results;

/** The fixtures' lists, with the users and groups the simulator seeds (the fixtures have none). */
export function fixtureVocabulary(): DmsVocabulary {
  return {
    tags: results('tags.json'),
    correspondents: results('correspondents.json'),
    document_types: results('document_types.json'),
    storage_paths: results('storage_paths.json'),
    custom_fields: results('custom_fields.json'),
    users: [
      { id: 3, name: 'anna' },
      { id: 4, name: 'ben' },
    ],
    groups: [{ id: 1, name: 'Family' }],
  };
}

/** Both fixture pages of `GET /api/documents/`. */
export function fixtureDocuments(): DmsDocument[] {
  return [...results<DmsDocument>('documents-page1.json'), ...results<DmsDocument>('documents-page2.json')];
}
