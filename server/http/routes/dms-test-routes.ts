import express, { Router } from 'express';
import type { Services } from '../../services.js';

/** `POST /api/ui/settings/test-dms` (session only): tries a dms URL and token before they are saved. */
export function dmsTestRoutes(services: Services): Router {
  const router = Router();
  router.post('/settings/test-dms', express.json({ limit: '16kb' }), async (req, res) => {
    res.json(await services.testDmsConnection(req.body));
  });
  return router;
}
