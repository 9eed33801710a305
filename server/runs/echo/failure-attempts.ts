import type { DmsDocument } from '../../dms/types.js';
import { documentState } from './document-state.js';
import type { DocumentTable } from './document-table.js';

/** A document whose last run failed, as health lists it. */
export interface DocumentFailure {
  document: number;
  message: string;
  attempts: number;
  at: string;
}

/** Runs the dms failed, counted per document and state: what the retries and health's `failed_documents` read. */
export interface FailureAttempts {
  /**
   * A run of this state could not be applied (the dms refused a write): the state is not handled, and the
   * attempts at it are counted (a new state starts again at 1). Returns the count so far.
   */
  failed(doc: DmsDocument, message: string): number;
  /**
   * The document could not even be read (the dms failed): listed with the failures like a refused write, counted
   * per document until a run of it succeeds. Returns the count so far.
   */
  failedRead(documentId: number, message: string): number;
  /** How often runs of exactly this state have failed (0: never, or a new state since). */
  failedAttempts(doc: DmsDocument): number;
  /** The last failure's message for the document, or null. */
  failureOf(documentId: number): string | null;
  /** A run of the document was applied in full: its failure is over. */
  succeeded(documentId: number): void;
  /** The documents whose last run failed and whose state has not changed since, newest first. */
  failures(limit?: number): DocumentFailure[];
}

/** The failures kept in the echo records' table; `forget` drops the document's known state (a failed run is not handled). */
export function createFailureAttempts(
  table: DocumentTable,
  forget: (documentId: number) => void,
  now: () => number,
): FailureAttempts {
  const count = (id: number, state: string, message: string) => {
    // Not handled, not even a partly applied write's state: the next arrival or catch-up runs the rules again.
    forget(id);
    const entry = table.touch(id);
    const attempts = entry.failure?.state === state ? entry.failure.attempts + 1 : 1;
    entry.failure = { state, message, attempts, at: now() };
    void table.persist();
    return attempts;
  };
  return {
    failed: (doc, message) => count(doc.id, documentState(doc), message),
    // No state was read: the empty state never equals a document's, so the next run that reads one starts afresh.
    failedRead: (id, message) => count(id, '', message),
    failedAttempts(doc) {
      const failure = table.get(doc.id)?.failure;
      return failure && failure.state === documentState(doc) ? failure.attempts : 0;
    },
    failureOf: (id) => table.get(id)?.failure?.message ?? null,
    succeeded(id) {
      const entry = table.get(id);
      if (!entry?.failure) return;
      delete entry.failure;
      table.changed(id);
    },
    failures(limit = 20) {
      const list: DocumentFailure[] = [];
      for (const [document, { failure }] of table.entries())
        if (failure)
          list.push({
            document,
            message: failure.message,
            attempts: failure.attempts,
            at: new Date(failure.at).toISOString(),
          });
      return list.sort((a, b) => b.at.localeCompare(a.at)).slice(0, limit);
    },
  };
}
