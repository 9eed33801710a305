import { Router } from 'express';
import { parseTraceQuery } from '../../history/trace-query.js';
import type { Services } from '../../services.js';
import { requireSessionOrToken } from '../middleware/auth-tiers.js';

/** `GET /api/traces` (shared tier): recent execution records, newest first, with optional filters. */
export function tracesRoutes(services: Services): Router {
  const router = Router();
  router.get('/traces', requireSessionOrToken(services.auth), (req, res) => {
    const query = parseTraceQuery(req.query);
    res.json({ traces: services.history.query(query) });
  });
  return router;
}
