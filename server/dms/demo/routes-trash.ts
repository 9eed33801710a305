import type { SimRoute } from './routes-documents.js';
import { trashHandler } from './trash.js';

/** TrashView's only permission class is IsAuthenticated; it checks delete permission per document. */
export const trashRoutes: SimRoute[] = [
  { pattern: '/api/trash/', regex: /^\/api\/trash\/$/, methods: ['GET', 'POST'], handler: trashHandler },
];
