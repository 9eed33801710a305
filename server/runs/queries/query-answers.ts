import { decodeCustomFieldValue } from '../../dms/custom-field-codec.js';
import { DmsError } from '../../dms/dms-errors.js';
import type { DmsClient, DmsDocument } from '../../dms/types.js';
import type { VocabularyIndex } from '../../dms/vocabulary-index.js';
import {
  MAX_QUERY_RESULTS,
  type QueryAnswer,
  type QueryAnswerDocument,
  type QueryQuestion,
} from '../../engine/document-queries.js';
import type { CustomFieldValue, RuleDocument } from '../../engine/model.js';
import { matchesQuestion, surelyMatchedAlike } from '../../engine/query-local.js';
import { errorMessage } from '../../error-message.js';
import { queryRequest } from './query-filters.js';

/** Questions one document's evaluation may ask; more fail the rule that asks (a loop in a rule set, or a runaway). */
export const MAX_QUERIES_PER_DOCUMENT = 10;
/** Distinct questions one run or job keeps answers for; the oldest are forgotten beyond it. */
export const MAX_CACHED_ANSWERS = 2_000;

const FIELDS = ['id', 'title', 'created', 'added', 'archive_serial_number', 'custom_fields'];

/** What the dms said, before the asking document is left out: one more than an answer shows, so it can be. */
interface RawAnswer {
  count: number;
  documents: DmsDocument[];
  /** Why the dms was not asked. */
  note?: string;
}

export interface QueryStats {
  /** Questions the evaluations asked. */
  asked: number;
  /** Requests sent to the dms for them. */
  requests: number;
  /** Questions answered from the cache. */
  reused: number;
}

/**
 * Answers queries over other documents for one run or job, through the dms's list filters, never by reading
 * the archive. Identical questions are asked once (a job over 1,000 documents asking "how many documents of
 * this correspondent" asks once per correspondent), until the run writes a field a cached answer depends on.
 */
export interface DocumentQueries {
  /** `self`: the asking document as read for this run, to tell without a request whether it is among the matches. */
  answer(question: QueryQuestion, index: VocabularyIndex, self?: RuleDocument): Promise<QueryAnswer>;
  /** The run wrote these fields of a document: answers that filter or sort by them are asked again. */
  wrote(fields: Iterable<string>): void;
  readonly stats: QueryStats;
}

export function createDocumentQueries(dms: Pick<DmsClient, 'findDocuments'>): DocumentQueries {
  const cache = new Map<string, { pending: Promise<RawAnswer>; reads: Set<string> }>();
  const stats: QueryStats = { asked: 0, requests: 0, reused: 0 };

  async function ask(question: QueryQuestion, index: VocabularyIndex): Promise<RawAnswer | { error: string }> {
    const request = queryRequest(question, index);
    if (request.kind === 'error') return { error: request.error };
    if (request.kind === 'none') return { count: 0, documents: [], note: request.why };
    const key = JSON.stringify(request.query);
    const hit = cache.get(key);
    if (hit) {
      stats.reused++;
      return hit.pending;
    }
    stats.requests++;
    const pending = dms
      .findDocuments({ ...request.query, pageSize: MAX_QUERY_RESULTS + 1, fields: FIELDS })
      .then((page) => ({ count: page.count, documents: page.documents }));
    const entry = {
      pending,
      reads: new Set([...question.where.map((f) => topField(f.field)), topField(question.order.field)]),
    };
    // A failed request is not remembered: the next document asks again.
    pending.catch(() => cache.get(key) === entry && cache.delete(key));
    cache.set(key, entry);
    if (cache.size > MAX_CACHED_ANSWERS) cache.delete(cache.keys().next().value as string);
    return pending;
  }

  return {
    stats,
    async answer(question, index, self) {
      stats.asked++;
      const before = stats.requests;
      let raw: RawAnswer | { error: string };
      try {
        raw = await ask(question, index);
        if ('error' in raw) return raw;
        const own = raw.documents.some((d) => d.id === question.exclude);
        // The asking document may be among the matches the list cut off: the document as read says, or else
        // one more request (never cached) does.
        const unseen = !own && raw.count > raw.documents.length && question.exclude > 0;
        const among = async () =>
          self && surelyMatchedAlike(self, question) ? matchesQuestion(self, question) : isAmong(question, index);
        const total = raw.count - (own || (unseen && (await among())) ? 1 : 0);
        const documents = raw.documents
          .filter((d) => d.id !== question.exclude)
          .slice(0, MAX_QUERY_RESULTS)
          .map((d) => answerDocument(d, question.order.field, index));
        const cached = stats.requests === before && raw.note === undefined;
        return { total, documents, ...(cached ? { cached } : {}), ...(raw.note ? { note: raw.note } : {}) };
      } catch (err) {
        // The dms refused this question (a 4xx): the rule that asked fails. No answer at all (down, 5xx) fails
        // the run like any dms failure, so the paths that retry failed runs retry it.
        if (err instanceof DmsError && err.dmsStatus !== null && err.dmsStatus >= 400 && err.dmsStatus < 500)
          return { error: `the dms refused the query: ${errorMessage(err)}` };
        throw err;
      }
    },
    wrote(fields) {
      const written = new Set([...fields].map(topField));
      for (const [key, entry] of cache) if ([...entry.reads].some((f) => written.has(f))) cache.delete(key);
    },
  };

  /** Whether the asking document matches too (it is not among the first results): one request, never cached. */
  async function isAmong(question: QueryQuestion, index: VocabularyIndex): Promise<boolean> {
    const request = queryRequest(question, index);
    if (request.kind !== 'ask') return false;
    stats.requests++;
    const page = await dms.findDocuments({
      filters: { ...request.query.filters, id: String(question.exclude) },
      ordering: 'id',
      pageSize: 1,
      fields: ['id'],
    });
    return page.count > 0;
  }
}

/** `custom_fields.Betrag` → `custom_fields` (what a write reports), `tags` → `tags`. */
function topField(field: string): string {
  return field.startsWith('custom_fields.') ? 'custom_fields' : field;
}

function answerDocument(d: DmsDocument, orderField: string, index: VocabularyIndex): QueryAnswerDocument {
  let value: CustomFieldValue = null;
  if (orderField.startsWith('custom_fields.')) {
    const field = index.field(orderField.slice('custom_fields.'.length));
    const raw = field ? d.custom_fields?.find((cf) => cf.field === field.id) : undefined;
    value = field && raw ? decodeCustomFieldValue(field, raw.value) : null;
  } else if (orderField === 'archive_serial_number') value = d.archive_serial_number ?? null;
  else if (orderField === 'created' || orderField === 'added') {
    const v = (d as unknown as Record<string, unknown>)[orderField];
    value = typeof v === 'string' ? v.slice(0, 10) : null;
  }
  return { id: d.id, title: typeof d.title === 'string' ? d.title : '', value };
}
