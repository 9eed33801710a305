import { Router } from 'express';
import { BadRequestError } from '../../errors.js';
import type { Services } from '../../services.js';

const MAX_HITS = 20;

/** `GET /api/ui/documents?search=`: the first documents whose title contains the text (the run panel's picker). */
export function documentsRoutes(services: Services): Router {
  const router = Router();
  router.get('/documents', async (req, res) => {
    const search = typeof req.query.search === 'string' ? req.query.search.trim() : '';
    if (search.length < 2 || search.length > 200) throw new BadRequestError('Send ?search= with 2 to 200 characters of a document title.');
    // One page only: a picker needs the best few hits, never a scan of the whole dms.
    const pages = services.dms.pages({ filters: { title__icontains: search }, fields: ['id', 'title', 'created'], pageSize: MAX_HITS });
    const first = await pages.next();
    await pages.return(undefined);
    const page = first.done ? { count: 0, documents: [] } : first.value;
    res.json({
      count: page.count,
      documents: page.documents.slice(0, MAX_HITS).map((d) => ({ id: d.id, title: d.title, created: d.created ?? null })),
    });
  });
  return router;
}
