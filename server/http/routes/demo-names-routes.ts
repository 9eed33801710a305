import express, { Router } from 'express';
import type { DemoNames } from '../../settings/demo-names.js';

/** `POST /api/ui/demo/names` (session only): `{kind, name}` created in the demo dms, from a validation error. */
export function demoNamesRoutes({ demoNames }: { demoNames: DemoNames }): Router {
  const router = Router();
  router.post('/demo/names', express.json({ limit: '4kb' }), async (req, res) => {
    res.status(201).json({ ok: true, ...(await demoNames.create(req.body)) });
  });
  return router;
}
