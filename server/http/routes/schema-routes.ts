import { Router } from 'express';
import type { Services } from '../../services.js';

/** `GET /api/ui/schema`: the rule JSON schema and the editor vocabulary (with the dms's current names). */
export function schemaRoutes(services: Services): Router {
  const router = Router();
  router.get('/schema', async (_req, res) => {
    res.json(await services.rules.schema());
  });
  return router;
}
