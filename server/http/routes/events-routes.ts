import { Router } from 'express';
import { booleanParam, oneOfParam, positiveIntegerParam } from '../../query-params.js';
import { EVENT_KINDS, EVENT_STATUSES } from '../../history/event-types.js';
import type { AuthService } from '../../auth/auth-service.js';
import type { JobService } from '../../runs/jobs/job-service.js';
import type { SuggestionService } from '../../suggest/suggest-service.js';
import { requireSessionOrToken } from '../middleware/auth-tiers.js';

const eventId = (raw: string): number => positiveIntegerParam(raw, 'event id') as number;

/** Background jobs, suggestions, webhook runs and catch-ups (shared tier): list, one record, cancel, resume, revert. */
export function eventsRoutes({
  auth,
  jobs,
  suggestions,
}: {
  auth: AuthService;
  jobs: JobService;
  /** Suggestions run in their own queue, so only it can cancel them. */
  suggestions: Pick<SuggestionService, 'cancel'>;
}): Router {
  const router = Router();
  router.use('/events', requireSessionOrToken(auth));

  router.get('/events', (req, res) => {
    const events = jobs.list({
      limit: positiveIntegerParam(req.query.limit, 'limit'),
      kind: oneOfParam(req.query.kind, EVENT_KINDS, 'kind'),
      status: oneOfParam(req.query.status, EVENT_STATUSES, 'status'),
    });
    res.json({ events });
  });

  router.get('/events/:id', (req, res) => {
    res.json(jobs.get(eventId(req.params.id)));
  });

  router.post('/events/:id/cancel', (req, res) => {
    const id = eventId(req.params.id);
    const event = jobs.get(id).kind === 'suggestion' ? suggestions.cancel(id) : jobs.cancel(id);
    res.json({ ok: true, event });
  });

  router.post('/events/:id/resume', (req, res) => {
    const event = jobs.resume(eventId(req.params.id));
    res.status(202).json({ ok: true, queued: true, event_id: event.event_id, resumes: event.resumes });
  });

  router.post('/events/:id/apply', (req, res) => {
    const event = jobs.apply(eventId(req.params.id));
    res
      .status(202)
      .json({ ok: true, queued: true, event_id: event.event_id, applied_from: event.applied_from, dry_run: false });
  });

  router.post('/events/:id/revert', (req, res) => {
    const event = jobs.revert(eventId(req.params.id), {
      dryRun: booleanParam(req.query.dry_run, 'dry_run', false),
    });
    res
      .status(202)
      .json({ ok: true, queued: true, event_id: event.event_id, reverts: event.reverts, dry_run: event.dry_run });
  });
  return router;
}
