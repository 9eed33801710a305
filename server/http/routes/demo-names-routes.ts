import express, { Router } from 'express';
import type { DmsInfo } from '../../dms/dms-connection.js';
import { createDemoName } from '../../dms/demo-names.js';
import type { DmsClient } from '../../dms/types.js';

/** `POST /api/ui/demo/names` (session only): `{kind, name}` created in the demo dms, from a validation error. */
export function demoNamesRoutes(deps: { dms: DmsClient; dmsInfo: DmsInfo }): Router {
  const router = Router();
  router.post('/demo/names', express.json({ limit: '4kb' }), async (req, res) => {
    res.status(201).json({ ok: true, ...(await createDemoName(deps, req.body)) });
  });
  return router;
}
