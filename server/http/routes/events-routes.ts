import { Router } from 'express';
import { booleanParam, oneOfParam, positiveIntegerParam } from '../../query-params.js';
import type { EventKind, EventStatus } from '../../history/event-store.js';
import type { Services } from '../../services.js';
import { requireSessionOrToken } from '../middleware/auth-tiers.js';

const KINDS: readonly EventKind[] = ['job', 'revert', 'webhook', 'catchup'];
const STATUSES: readonly EventStatus[] = ['queued', 'running', 'done', 'failed', 'cancelled', 'interrupted'];

const eventId = (raw: string): number => positiveIntegerParam(raw, 'event id') as number;

/** Background jobs, webhook runs and catch-ups (shared tier): list, one record, cancel, resume, revert. */
export function eventsRoutes(services: Services): Router {
  const router = Router();
  router.use('/events', requireSessionOrToken(services.auth));

  router.get('/events', (req, res) => {
    const events = services.jobs.list({
      limit: positiveIntegerParam(req.query.limit, 'limit'),
      kind: oneOfParam(req.query.kind, KINDS, 'kind'),
      status: oneOfParam(req.query.status, STATUSES, 'status'),
    });
    res.json({ events });
  });

  router.get('/events/:id', (req, res) => {
    res.json(services.jobs.get(eventId(req.params.id)));
  });

  router.post('/events/:id/cancel', (req, res) => {
    res.json({ ok: true, event: services.jobs.cancel(eventId(req.params.id)) });
  });

  router.post('/events/:id/resume', (req, res) => {
    const event = services.jobs.resume(eventId(req.params.id));
    res.status(202).json({ ok: true, queued: true, event_id: event.event_id, resumes: event.resumes });
  });

  router.post('/events/:id/apply', (req, res) => {
    const event = services.jobs.apply(eventId(req.params.id));
    res
      .status(202)
      .json({ ok: true, queued: true, event_id: event.event_id, applied_from: event.applied_from, dry_run: false });
  });

  router.post('/events/:id/revert', (req, res) => {
    const event = services.jobs.revert(eventId(req.params.id), {
      dryRun: booleanParam(req.query.dry_run, 'dry_run', false),
    });
    res
      .status(202)
      .json({ ok: true, queued: true, event_id: event.event_id, reverts: event.reverts, dry_run: event.dry_run });
  });
  return router;
}
