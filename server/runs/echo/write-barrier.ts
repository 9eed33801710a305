/** Writes of a document still in flight: an arrival that reads the document waits until they settle. */
export interface WriteBarrier {
  /** Resolves once no write to the document is in flight (or after `maxWaitMs`). */
  settled(documentId: number, maxWaitMs?: number): Promise<void>;
}
