import { Router } from 'express';
import type { Services } from '../../services.js';
import { requireSessionOrToken } from '../middleware/auth-tiers.js';

/** Scheduled rules with their next and last run (shared tier). */
export function schedulesRoutes(services: Services): Router {
  const router = Router();
  router.get('/schedules', requireSessionOrToken(services.auth), (_req, res) => {
    res.json({ schedules: services.schedules.list() });
  });
  return router;
}
