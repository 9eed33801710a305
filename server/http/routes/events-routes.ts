import { Router } from 'express';
import { BadRequestError } from '../../errors.js';
import type { EventKind, EventStatus } from '../../history/event-store.js';
import type { Services } from '../../services.js';
import { requireSessionOrToken } from '../middleware/auth-tiers.js';

const KINDS: readonly EventKind[] = ['job', 'revert', 'webhook'];
const STATUSES: readonly EventStatus[] = ['queued', 'running', 'done', 'failed', 'cancelled', 'interrupted'];

function eventId(raw: string): number {
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw new BadRequestError(`The event id must be a positive whole number, got "${raw}".`);
  return Number(raw);
}

function oneOf<T extends string>(raw: unknown, allowed: readonly T[], name: string): T | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !allowed.includes(raw as T)) throw new BadRequestError(`"${name}" must be one of ${allowed.join(', ')}.`);
  return raw as T;
}

function flag(raw: unknown, name: string, fallback: boolean): boolean {
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new BadRequestError(`"${name}" must be true or false.`);
}

/** Background jobs and webhook runs (shared tier): list, one record, cancel, revert. */
export function eventsRoutes(services: Services): Router {
  const router = Router();
  router.use('/events', requireSessionOrToken(services.auth));

  router.get('/events', (req, res) => {
    const limitRaw = req.query.limit;
    if (limitRaw !== undefined && (typeof limitRaw !== 'string' || !/^\d{1,6}$/.test(limitRaw) || Number(limitRaw) < 1)) {
      throw new BadRequestError('"limit" must be a positive whole number (at most 1000 are returned).');
    }
    const events = services.jobs.list({
      limit: limitRaw === undefined ? undefined : Number(limitRaw),
      kind: oneOf(req.query.kind, KINDS, 'kind'),
      status: oneOf(req.query.status, STATUSES, 'status'),
    });
    res.json({ events });
  });

  router.get('/events/:id', (req, res) => {
    res.json(services.jobs.get(eventId(req.params.id)));
  });

  router.post('/events/:id/cancel', (req, res) => {
    res.json({ ok: true, event: services.jobs.cancel(eventId(req.params.id)) });
  });

  router.post('/events/:id/revert', (req, res) => {
    const event = services.jobs.revert(eventId(req.params.id), { dryRun: flag(req.query.dry_run, 'dry_run', false) });
    res.status(202).json({ ok: true, queued: true, event_id: event.event_id, reverts: event.reverts, dry_run: event.dry_run });
  });
  return router;
}
