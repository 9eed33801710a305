import type { AttributionStatus } from '../echo/attribution.js';
import type { CatchUpState } from '../catch-up/catch-up-service.js';
import type { DocumentFailure, FailureAttempts } from '../echo/failure-attempts.js';

/** How documents reach the service, for health: when the dms last did, how many wait, and a failing catch-up. */
export interface ArrivalStatus {
  last_heard_at: string | null;
  waiting: number;
  cursor: string | null;
  catch_up_running: number | null;
  catch_up_error: string | null;
  catch_up_retry_at: string | null;
  polling_minutes: number;
  echoes_skipped: number;
  /** Documents whose last run the dms refused (newest first): tried again with backoff, then left until a person acts. */
  failed_documents: DocumentFailure[];
  /** How a person's change is told from the service's own echo: Paperless's audit log, or the document state. */
  attribution: AttributionStatus;
}

/** The ways documents arrive, each asked for its part of the status. */
export interface ArrivalSources {
  catchUp: { state(): CatchUpState };
  webhook: { readonly queue: { readonly waiting: number; readonly running: number }; readonly echoesSkipped: number };
  failures: Pick<FailureAttempts, 'failures'>;
  attribution: { status(): AttributionStatus };
}

/** Health's `arrival` part, read fresh on each call. */
export interface ArrivalReport {
  status(): ArrivalStatus;
}

export function createArrivalReport(sources: ArrivalSources): ArrivalReport {
  return {
    status: () =>
      arrivalStatus(
        sources.catchUp.state(),
        {
          waiting: sources.webhook.queue.waiting,
          running: sources.webhook.queue.running,
          echoesSkipped: sources.webhook.echoesSkipped,
        },
        sources.failures.failures(),
        sources.attribution.status(),
      ),
  };
}

export function arrivalStatus(
  catchUp: CatchUpState,
  webhook: { waiting: number; running: number; echoesSkipped: number },
  failedDocuments: DocumentFailure[],
  attribution: AttributionStatus,
): ArrivalStatus {
  return {
    last_heard_at: catchUp.last_heard_at,
    waiting: webhook.waiting + webhook.running + catchUp.remaining,
    cursor: catchUp.since,
    catch_up_running: catchUp.running_event,
    catch_up_error: catchUp.last_error,
    catch_up_retry_at: catchUp.next_retry_at,
    polling_minutes: catchUp.polling_minutes,
    echoes_skipped: webhook.echoesSkipped,
    failed_documents: failedDocuments,
    attribution,
  };
}
