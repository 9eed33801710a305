import express, { Router } from 'express';
import { clearSessionCookie, setSessionCookie } from '../session-cookie.js';
import { BadRequestError } from '../../app-errors.js';
import { VERSION } from '../../project-paths.js';
import type { AuthService } from '../../auth/auth-service.js';
import type { Config } from '../../config.js';
import type { DmsHealthReport } from '../../dms/dms-health.js';
import type { ArrivalReport } from '../../runs/arrival/arrival-status.js';
import { isAdminCaller, requireSameOrigin } from '../middleware/auth-tiers.js';
import { loginSource } from '../login-source.js';
import { SESSION_COOKIE } from '../../auth/sessions.js';

export interface PublicRoutesDeps {
  auth: AuthService;
  config: Pick<Config, 'publicUrl'>;
  dmsHealth: DmsHealthReport;
  arrival: ArrivalReport;
  startedAt: number;
}

/** Health, sign-in and sign-out: the routes that need no session. */
export function publicRoutes({ auth, config, dmsHealth, arrival, startedAt }: PublicRoutesDeps): Router {
  const router = Router();
  const json = express.json({ limit: '16kb' });

  // The service is healthy even when the dms is down: `dms.reachable` reports that separately. Health
  // answers from the last known dms state without waiting for the dms; `?deep=1` waits for a fresh ping.
  router.get('/health', async (req, res) => {
    const dms = await dmsHealth.read({ deep: req.query.deep === '1' || req.query.deep === 'true' });
    const admin = isAdminCaller(auth, req);
    res.json({
      status: 'healthy',
      version: VERSION,
      uptime_s: Math.round((Date.now() - startedAt) / 1000),
      // The public answer says only whether the dms answers; its address, version, token permissions,
      // errors (which can name hosts) and the arrival cursor are for the signed-in admin and scripts.
      dms: admin ? dms : { demo: dms.demo, reachable: dms.reachable, not_answering_since: dms.not_answering_since },
      ...(admin ? { arrival: arrival.status() } : {}),
    });
  });

  router.post('/auth', requireSameOrigin(), json, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (typeof body.username !== 'string' || typeof body.password !== 'string') {
      throw new BadRequestError('Send JSON {"username": "...", "password": "..."}.');
    }
    const token = await auth.login(body.username, body.password, loginSource(req));
    setSessionCookie(req, res, token, config.publicUrl);
    res.json({ ok: true, username: body.username });
  });

  router.post('/logout', requireSameOrigin(), (req, res) => {
    auth.endSession((req.cookies as Record<string, string> | undefined)?.[SESSION_COOKIE]);
    clearSessionCookie(req, res, config.publicUrl);
    res.json({ ok: true });
  });

  return router;
}
