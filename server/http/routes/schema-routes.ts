import { Router } from 'express';
import type { RuleStore } from '../../rules/rules.js';

/** `GET /api/ui/schema`: the rule JSON schema and the editor vocabulary (with the dms's current names). */
export function schemaRoutes({ rules }: { rules: RuleStore }): Router {
  const router = Router();
  router.get('/schema', async (_req, res) => {
    res.json(await rules.schema());
  });
  return router;
}
