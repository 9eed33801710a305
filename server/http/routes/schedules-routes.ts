import { Router } from 'express';
import type { AuthService } from '../../auth/auth-service.js';
import type { ScheduleService } from '../../runs/schedules/schedule-service.js';
import { requireSessionOrToken } from '../middleware/auth-tiers.js';

/** Scheduled rules with their next and last run (shared tier). */
export function schedulesRoutes({ auth, schedules }: { auth: AuthService; schedules: ScheduleService }): Router {
  const router = Router();
  router.get('/schedules', requireSessionOrToken(auth), (_req, res) => {
    res.json({ schedules: schedules.list() });
  });
  return router;
}
