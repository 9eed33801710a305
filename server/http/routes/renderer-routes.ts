import express, { Router } from 'express';
import fs from 'node:fs';
import path from 'node:path';

// Asset names carry a content hash (build/build-renderer.mjs), so a browser may keep them for a year;
// index.html names the current ones and must always be revalidated.
const ASSET_MAX_AGE_MS = 365 * 24 * 3600 * 1000;

const NOT_BUILT =
  'The dms-rules Web UI has not been built yet. Run "npm run build" (or "node build/build-renderer.mjs") and reload this page. The REST API under /api works without it.';

/** Serves the built Web UI from `distDir`, with an SPA fallback to index.html for every non-API GET. */
export function rendererRoutes(distDir: string): Router {
  const router = Router();
  const indexFile = path.join(distDir, 'index.html');

  router.use(
    '/assets',
    express.static(path.join(distDir, 'assets'), { index: false, maxAge: ASSET_MAX_AGE_MS, immutable: true }),
    // A stale page asking for an asset of an older build: a plain 404, never index.html as JavaScript.
    (_req, res) => {
      res.status(404).type('text/plain; charset=utf-8').send('No such asset; reload the page.');
    },
  );
  router.use(express.static(distDir, { index: false, maxAge: 0 }));

  router.use((req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.path === '/api' || req.path.startsWith('/api/')) {
      next();
      return;
    }
    // Checked per request so a UI built after the server started is picked up without a restart.
    if (!fs.existsSync(indexFile)) {
      res.status(503).type('text/plain; charset=utf-8').send(NOT_BUILT);
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(indexFile);
  });

  return router;
}
