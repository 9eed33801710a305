// The document panel's data: one document as the dms has it, in names, with where the loaded rules' content
// patterns hit its text.
import { contentMatches, type ContentMatch } from '../../engine/content-matches.js';
import type { RuleDocument } from '../../engine/model.js';
import { createVocabularyIndex } from '../../dms/vocabulary-index.js';
import type { DmsClient } from '../../dms/types.js';
import type { LoadedRule } from '../../rules/rules.js';
import { toRuleDocument } from './rule-document.js';

/** Text beyond this is cut in the panel: a browser tab need not hold a 5 MB OCR dump to show a document. */
export const MAX_PANEL_CONTENT = 200_000;

export interface DocumentNoteView {
  note: string;
  created: string | null;
  user: string | null;
}

export interface DocumentView {
  id: number;
  /** The document in names, as rules see it (content possibly cut, see `content_cut`). */
  document: RuleDocument;
  notes: DocumentNoteView[];
  /** The document's page in the dms (the demo dms has its own). */
  link: string;
  /** Where each loaded rule's content patterns match the text, in text order. */
  matches: ContentMatch[];
  /** The content's full length when it was cut to MAX_PANEL_CONTENT, else null. */
  content_cut: number | null;
}

export interface DocumentViewDeps {
  dms: DmsClient;
  dmsUrl: string;
  rules(): LoadedRule[];
}

/** Reads document `id` and its names from the dms; a missing document is the dms's not-found error. */
export async function documentView(deps: DocumentViewDeps, id: number): Promise<DocumentView> {
  const [doc, vocabulary] = await Promise.all([deps.dms.getDocument(id), deps.dms.vocabulary({ principals: true })]);
  const document = toRuleDocument(doc, createVocabularyIndex(vocabulary));
  const full = document.content.length;
  if (full > MAX_PANEL_CONTENT) document.content = document.content.slice(0, MAX_PANEL_CONTENT);
  return {
    id,
    document,
    notes: (doc.notes ?? []).map((n) => ({ note: n.note, created: n.created ?? null, user: n.user?.username ?? null })),
    link: `${deps.dmsUrl.replace(/\/+$/, '')}/documents/${id}/details`,
    matches: contentMatches(
      deps.rules().map((r) => r.definition),
      document.content,
    ),
    content_cut: full > MAX_PANEL_CONTENT ? full : null,
  };
}
