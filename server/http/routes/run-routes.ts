import { Router } from 'express';
import { parseRunQuery } from '../../runs/run-query.js';
import type { Services } from '../../services.js';
import { requireSessionOrToken } from '../middleware/auth-tiers.js';

/** `POST /api/run` (shared tier): synchronous runs against one document, or a background job for one rule. */
export function runRoutes(services: Services): Router {
  const router = Router();
  router.post('/run', requireSessionOrToken(services.auth), async (req, res) => {
    const query = parseRunQuery(req.query);
    if (query.document === null) {
      const { event_id } = services.jobs.startRuleJob({ ruleId: query.ruleId, dryRun: query.dryRun });
      res.json({ ok: true, queued: true, rule_id: query.ruleId, dry_run: query.dryRun, event_id });
      return;
    }
    const traces = await services.runs.runManual({
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
