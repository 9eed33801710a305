/** Stops automatic runs from writing a document something else keeps answering (another automation, a workflow). */
export interface LoopBreaker {
  /** Null when the service may write the document; otherwise the loop breaker's reason. */
  holdReason(documentId: number): string | null;
  /** A person asked for a run of this document: the loop breaker lets it be written again. */
  release(documentId: number): void;
}
