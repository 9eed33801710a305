import type { DmsDocument } from '../../dms/types.js';

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
