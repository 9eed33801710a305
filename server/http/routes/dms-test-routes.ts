import express, { Router } from 'express';
import type { Services } from '../../services.js';
import { testDmsConnection } from '../../settings/dms-connection-test.js';

/** `POST /api/ui/settings/test-dms` (session only): tries a dms URL and token before they are saved. */
export function dmsTestRoutes(services: Services): Router {
  const router = Router();
  router.post('/settings/test-dms', express.json({ limit: '16kb' }), async (req, res) => {
    const { config } = services;
    res.json(await testDmsConnection({ current: services.dms, currentUrl: config.dmsUrl, currentToken: config.dmsToken }, req.body));
  });
  return router;
}
