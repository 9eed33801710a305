import { documentTitles, findDocumentsByTitle, type DocumentHit } from '../../dms/document-search.js';
import type { DmsClient } from '../../dms/types.js';
import type { LoadedRule } from '../../rules/rules.js';
import { documentView, type DocumentView } from './document-view.js';

/** The Web UI's reads of documents: the run panel's picker, titles for lists, the document panel. */
export interface DocumentService {
  /** The first documents whose title contains the text. */
  find(text: string): Promise<{ count: number; documents: DocumentHit[] }>;
  /** One document in names, with where the loaded rules' content patterns match. */
  view(id: number): Promise<DocumentView>;
  /** Titles of documents by id (at most 200), so lists name documents. */
  titles(ids: number[]): Promise<Record<number, string>>;
}

export interface DocumentServiceDeps {
  dms: DmsClient;
  /** The dms address, for links from the document panel to the document in Paperless. */
  dmsUrl: string;
  rules(): LoadedRule[];
}

export function createDocumentService(deps: DocumentServiceDeps): DocumentService {
  return {
    find: (text) => findDocumentsByTitle(deps.dms, text),
    view: (id) => documentView(deps, id),
    titles: (ids) => documentTitles(deps.dms, ids),
  };
}
