import express, { Router } from 'express';
import type { DmsConnectionTester } from '../../settings/dms-connection-test.js';

/** `POST /api/ui/settings/test-dms` (session only): tries a dms URL and token before they are saved. */
export function dmsTestRoutes({ dmsTest }: { dmsTest: DmsConnectionTester }): Router {
  const router = Router();
  router.post('/settings/test-dms', express.json({ limit: '16kb' }), async (req, res) => {
    res.json(await dmsTest.test(req.body));
  });
  return router;
}
