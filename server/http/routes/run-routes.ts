import { Router } from 'express';
import { parseRunQuery } from '../../runs/manual/run-request.js';
import type { AuthService } from '../../auth/auth-service.js';
import type { JobService } from '../../runs/jobs/job-service.js';
import type { RunService } from '../../runs/manual/run-service.js';
import { requireSessionOrToken } from '../middleware/auth-tiers.js';

/** `POST /api/run` (shared tier): synchronous runs against one document, or a background job for one rule. */
export function runRoutes({ auth, runs, jobs }: { auth: AuthService; runs: RunService; jobs: JobService }): Router {
  const router = Router();
  router.post('/run', requireSessionOrToken(auth), async (req, res) => {
    const query = parseRunQuery(req.query);
    if (query.document === null) {
      const { event_id } = jobs.startRuleJob({ ruleId: query.ruleId, dryRun: query.dryRun });
      res.json({ ok: true, queued: true, rule_id: query.ruleId, dry_run: query.dryRun, event_id });
      return;
    }
    const traces = await runs.runManual({
      document: query.document,
      ruleId: query.ruleId,
      dryRun: query.dryRun,
    });
    res.json({
      ok: true,
      queued: false,
      document: query.document,
      rule_id: query.ruleId,
      dry_run: query.dryRun,
      traces,
    });
  });
  return router;
}
