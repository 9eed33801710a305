import express, { Router, type Request } from 'express';
import type { Config } from '../../config.js';
import type { FirstStart, RequestOrigin } from '../../settings/first-admin.js';
import { hasForwardingHeaders } from '../middleware/allowed-hosts.js';
import { requireSameOrigin } from '../middleware/auth-tiers.js';
import { setSessionCookie } from '../session-cookie.js';

const originOf = (req: Request): RequestOrigin => ({
  remoteAddress: req.socket.remoteAddress,
  host: req.headers.host,
  forwarded: hasForwardingHeaders(req),
});

/** `GET/POST /api/setup`: the first start's one-time page that creates the admin account (this machine only). */
export function setupRoutes({
  firstStart,
  config,
}: {
  firstStart: FirstStart;
  config: Pick<Config, 'publicUrl'>;
}): Router {
  const router = Router();
  router.get('/setup', (req, res) => {
    res.json(firstStart.state(originOf(req)));
  });
  router.post('/setup', requireSameOrigin(), express.json({ limit: '16kb' }), async (req, res) => {
    const { username, session } = await firstStart.createAdmin(req.body, originOf(req));
    setSessionCookie(req, res, session, config.publicUrl);
    res.json({ ok: true, username });
  });
  return router;
}
