import type { WebhookTrigger } from '../webhook/parse-payload.js';

/**
 * The arrival policy as pure decisions, applied by the front door (`arrive.ts`, where the rules are spelled out).
 * Each function answers one question from facts the front door gathered; none reads the dms or a clock.
 */

/** What the service knows of the document as it was read, before any run. */
export interface ArrivalFacts {
  /** What happened, as Paperless said (a delivery) or as the facts show (catch-up, polling). */
  triggers: readonly WebhookTrigger[];
  /**
   * The arrival only says the document's `modified` moved (catch-up and polling read every document changed since
   * the cursor, overlaps included), not that Paperless saw a save: a state already handled is no news.
   */
  fromRead: boolean;
  /** This very addition (the same `added` time) was handled already. */
  addedHandled: boolean;
  /** The document is exactly in a state the service wrote or handled. */
  known: boolean;
  /** That state is one the service wrote (its own write's echo, unless someone changed it since). */
  own: boolean;
  /** Runs of exactly this state the dms refused so far. */
  failedAttempts: number;
}

/** Why an arrival is not run. */
export type SkipReason = 'echo' | 'handled' | 'given-up';

/**
 * Whether the arrival runs, or why not. `nothingForeign` asks the audit log whether anything but the service's own
 * writes changed the document since the service read it (true without an audit log); it is asked only for a
 * state the service wrote.
 */
export async function admit(
  facts: ArrivalFacts,
  maxAttempts: number,
  nothingForeign: () => Promise<boolean>,
): Promise<SkipReason | null> {
  // Given up on: refused too often in exactly this state, until a person changes it or runs it by hand.
  if (facts.failedAttempts >= maxAttempts) return 'given-up';
  if (facts.triggers.includes('added')) {
    // A document added is a new arrival whoever wrote it first (a job, another delivery): never an echo. Only a
    // repeat of an addition the service handled (Paperless's retry, catch-up's copy), unchanged since, is dropped.
    if (!facts.addedHandled || !facts.known) return null;
    return !facts.own || (await nothingForeign()) ? 'handled' : null;
  }
  if (facts.known && facts.own) return (await nothingForeign()) ? 'echo' : null;
  return facts.known && facts.fromRead ? 'handled' : null;
}

/** An arrival whose triggers include anything but `updated` (added, or unknown: both kinds) handles an addition. */
export const handlesAddition = (triggers: readonly WebhookTrigger[]): boolean => triggers.some((t) => t !== 'updated');
