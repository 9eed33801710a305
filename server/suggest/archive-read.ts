import { DOCUMENT_FIELDS, type RuleDocument } from '../engine/engine.js';
import { capContent } from '../eval/content-budget.js';
import type { VocabularyIndex } from '../dms/vocabulary-index.js';
import type { DmsClient, DmsDocument } from '../dms/types.js';
import { toRuleDocument } from '../runs/documents/rule-document.js';
import type { ArchiveTextCache } from './archive-cache.js';
import { SuggestionError } from './suggestion-error.js';
import type { DocText } from './text-dictionary.js';

const PAGES_AHEAD = 2;

/** Every field a rule document is made of but the text: what a listing of an archive whose text is cached asks for. */
export const LISTING_FIELDS = [...DOCUMENT_FIELDS.filter((field) => field !== 'content'), 'custom_fields'];

export interface ReadDocument {
  /** The document as rules see it, its content cut to the content limit. */
  doc: RuleDocument;
  text: DocText;
}

export interface ArchiveReadOptions {
  dms: DmsClient;
  vocabulary: VocabularyIndex;
  cache: ArchiveTextCache;
  signal: AbortSignal;
  /** The dms's count of documents, once the first page is in. */
  onTotal(total: number): void;
}

/**
 * Every document the token sees, in id order, with its text read into the cache's dictionary. With an empty
 * cache, the job's streaming read; otherwise a listing without text (`fields=`), whose documents with a
 * `modified` the cache does not hold (new or changed) are read by id, a page's worth in one request. Labels
 * always come from the dms as it is now.
 */
export async function* readArchive(options: ArchiveReadOptions): AsyncGenerator<ReadDocument> {
  const { dms, cache, signal } = options;
  const cold = cache.size === 0;
  let first = true;
  for await (const page of dms.pages({
    ahead: PAGES_AHEAD,
    ...(cold ? {} : { fields: LISTING_FIELDS }),
  })) {
    if (first) options.onTotal(page.count);
    first = false;
    if (cold) {
      for (const doc of page.documents) yield fresh(options, doc);
    } else {
      const cached = page.documents.map((doc) => cache.get(doc.id, doc.modified));
      const missing = page.documents.filter((_, i) => !cached[i]).map((doc) => doc.id);
      const read = new Map((missing.length ? await dms.getDocuments(missing) : []).map((doc) => [doc.id, doc]));
      for (const [i, listed] of page.documents.entries()) {
        const hit = cached[i];
        if (hit) yield { doc: { ...toRuleDocument(listed, options.vocabulary), content: hit.content }, text: hit.text };
        else {
          // Gone since it was listed: left out, as the streaming read leaves it out.
          const doc = read.get(listed.id);
          if (doc) yield fresh(options, doc);
        }
      }
    }
    if (signal.aborted) throw new SuggestionError('Cancelled on request.');
  }
}

function fresh({ cache, vocabulary }: ArchiveReadOptions, dmsDoc: DmsDocument): ReadDocument {
  const doc = capContent(toRuleDocument(dmsDoc, vocabulary)).document;
  const text = cache.dictionary.read(doc.content);
  cache.put(doc.id, dmsDoc.modified, doc.content, text);
  return { doc, text };
}
