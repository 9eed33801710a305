import { Router } from 'express';
import { parseTraceQuery } from '../../history/trace-query.js';
import type { AuthService } from '../../auth/auth-service.js';
import type { TraceStore } from '../../history/trace-store.js';
import { requireSessionOrToken } from '../middleware/auth-tiers.js';

/** `GET /api/traces` (shared tier): recent execution records, newest first, with optional filters. */
export function tracesRoutes({ auth, history }: { auth: AuthService; history: TraceStore }): Router {
  const router = Router();
  router.get('/traces', requireSessionOrToken(auth), async (req, res) => {
    const query = parseTraceQuery(req.query);
    res.json({ traces: await history.query(query) });
  });
  return router;
}
