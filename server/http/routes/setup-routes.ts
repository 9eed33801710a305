import express, { Router } from 'express';
import type { Config } from '../../config.js';
import type { FirstStart } from '../../settings/first-admin.js';
import { requireSameOrigin } from '../middleware/auth-tiers.js';
import { setSessionCookie } from '../session-cookie.js';

/** `GET/POST /api/setup`: the first start's one-time page that creates the admin account (with the setup code). */
export function setupRoutes({
  firstStart,
  config,
}: {
  firstStart: FirstStart;
  config: Pick<Config, 'publicUrl'>;
}): Router {
  const router = Router();
  router.get('/setup', (_req, res) => {
    res.json(firstStart.state());
  });
  router.post('/setup', requireSameOrigin(), express.json({ limit: '16kb' }), async (req, res) => {
    const { username, session } = await firstStart.createAdmin(req.body);
    setSessionCookie(req, res, session, config.publicUrl);
    res.json({ ok: true, username });
  });
  return router;
}
