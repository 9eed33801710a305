import { parse } from 'yaml';
import { contentMatches, type ContentMatch } from '../engine/content-matches.js';
import type { RuleDefinition } from '../engine/engine.js';
import { errorMessage } from '../error-message.js';
import { NotFoundError } from '../app-errors.js';
import type { EventRecord, EventStore } from '../history/event-store.js';
import type { Logger } from '../log.js';
import { eventLifecycle, type StopReason } from '../runs/event-lifecycle.js';
import { createJobQueue } from '../runs/jobs/job-queue.js';
import { ArchiveTextCache } from './archive-cache.js';
import { runSuggestion, type SuggestJobDeps } from './suggest-job.js';
import { SuggestionError } from './suggestion-error.js';
import { describeTarget, parseSuggestRequest } from './target.js';

/** Rule suggestions as background events (`POST /api/suggestions`). Exposed as `services.suggestions`. */
export interface SuggestionService {
  /** Validates the request (400 on bad input) and queues it; answers at once with the event. */
  start(body: unknown): EventRecord;
  /** Cancels a queued or running suggestion (`POST /api/events/{id}/cancel`); a finished one is a 409. */
  cancel(eventId: number): EventRecord;
  /** Where one candidate of a finished suggestion matches `text` (404 when there is no such event or candidate). */
  candidateMatches(eventId: number, ruleId: string, text: string): ContentMatch[];
  /** Resolves when no suggestion is queued or running (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** The text cache is emptied after this long without a suggestion. */
export const CACHE_IDLE_MS = 15 * 60_000;

export interface SuggestionServiceDeps extends Omit<SuggestJobDeps, 'cache'> {
  logger: Logger;
  /** Default: a cache of CACHE_BYTES. */
  cache?: ArchiveTextCache;
}

/**
 * Suggestions run one at a time in their own queue: they only read, so they need not wait for a rule job,
 * and two at once would only share the same two cores.
 */
export function createSuggestionService(deps: SuggestionServiceDeps): SuggestionService {
  const events: EventStore = deps.events;
  const cache = deps.cache ?? new ArchiveTextCache();
  const jobDeps: SuggestJobDeps = { ...deps, cache };
  // A person suggests a few labels in a row, then is done: the texts are let go after a while without a request.
  let release: NodeJS.Timeout | undefined;
  const releaseLater = () => {
    clearTimeout(release);
    release = setTimeout(() => cache.clear(), CACHE_IDLE_MS).unref();
  };
  const queue = createJobQueue(events, deps.logger, { maxQueued: 5, work: 'suggestion' });
  const life = eventLifecycle(events, 'suggestion', deps.now);
  return {
    start(body) {
      const request = parseSuggestRequest(body);
      const event = events.create({ kind: 'suggestion', rule_id: null, dry_run: true });
      return queue.submit(event, async (eventId, signal) => {
        life.running(eventId);
        clearTimeout(release);
        try {
          const result = await runSuggestion(jobDeps, eventId, request, signal);
          const first = result.candidates[0];
          const { hits, entries, bytes } = result.cache;
          deps.logger.info(`suggestion ${eventId}: ${hits} of ${result.documents} document texts from the cache`, {
            cached_documents: entries,
            cache_mib: Math.round((bytes / 2 ** 20) * 10) / 10,
          });
          life.done(eventId, {
            matched: first.matched,
            report: {
              matched: first.matched,
              changed: 0,
              unchanged: 0,
              fields: {},
              samples: [],
              prefilter: {},
              target: describeTarget(request.target),
              suggestions: result.candidates,
              visibility: result.visibility,
              summary:
                `${result.candidates.length} ${result.candidates.length === 1 ? 'rule' : 'rules'} for the ` +
                `${describeTarget(request.target)} from ${result.labelled} labelled of ${result.documents} documents; ` +
                `the most precise: precision ${first.precision}, recall ${first.recall}.` +
                (result.visibility.warnings.length ? ' Not every document was visible: see the warnings.' : ''),
            },
          });
        } catch (err) {
          if (signal.aborted) {
            life.stopped(eventId, signal.reason as StopReason);
            return;
          }
          if (!(err instanceof SuggestionError))
            deps.logger.error(`suggestion ${eventId} failed: ${errorMessage(err)}`);
          life.failed(eventId, errorMessage(err));
        } finally {
          releaseLater();
        }
      });
    },
    cancel: (eventId) => queue.cancel(eventId),
    candidateMatches(eventId, ruleId, text) {
      const event = events.get(eventId);
      const candidate =
        event?.kind === 'suggestion' ? event.report?.suggestions?.find((c) => c.rule_id === ruleId) : null;
      if (!candidate)
        throw new NotFoundError(
          `No suggestion ${eventId} with a candidate "${ruleId}": ask for the suggestion again (events are pruned).`,
        );
      return contentMatches([(parse(candidate.yaml) as { rules: RuleDefinition[] }).rules[0]], text);
    },
    idle: () => queue.idle(),
    stop: () => {
      clearTimeout(release);
      return queue.stop();
    },
  };
}
