import cookieParser from 'cookie-parser';
import express from 'express';
import { errorHandler, apiNotFound } from './http/middleware/error-handler.js';
import { requireAllowedHost, type HostPolicy } from './http/middleware/allowed-hosts.js';
import { requestLog } from './http/middleware/request-log.js';
import { noStore, securityHeaders } from './http/middleware/security-headers.js';
import { requireSameOrigin, requireSession } from './http/middleware/auth-tiers.js';
import { desktopAuthRoutes } from './http/routes/desktop-auth-routes.js';
import { documentsRoutes } from './http/routes/documents-routes.js';
import { publicRoutes } from './http/routes/public-routes.js';
import { rendererRoutes } from './http/routes/renderer-routes.js';
import { reloadRoutes, rulesRoutes } from './http/routes/rules-routes.js';
import { schemaRoutes } from './http/routes/schema-routes.js';
import { settingsRoutes } from './http/routes/settings-routes.js';
import { setupRoutes } from './http/routes/setup-routes.js';
import { dmsTestRoutes } from './http/routes/dms-test-routes.js';
import { demoNamesRoutes } from './http/routes/demo-names-routes.js';
import { RENDERER_DIST_DIR } from './project-paths.js';
import { runRoutes } from './http/routes/run-routes.js';
import { tracesRoutes } from './http/routes/traces-routes.js';
import { eventsRoutes } from './http/routes/events-routes.js';
import { schedulesRoutes } from './http/routes/schedules-routes.js';
import { webhookRoutes } from './http/routes/webhook-routes.js';
import { uiRoutes } from './http/routes/ui-routes.js';
import { suggestionsRoutes } from './http/routes/suggestions-routes.js';
import type { Services } from './services.js';
import { serviceSecrets } from './redaction.js';

/** Builds the Express app from already-created services, handing each route only what it uses. Never listens (see `startServer`). */
export function createApp(services: Services): express.Express {
  const { config, logger, auth, rules, runs, jobs } = services;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Forwarded client addresses and https are believed only from the proxies SVC_TRUST_PROXY names.
  app.set('trust proxy', config.trustProxy ?? false);
  app.locals.hostPolicy = config satisfies HostPolicy;
  app.use(securityHeaders());
  app.use(requestLog(logger));
  app.use(requireAllowedHost(config));
  app.use(cookieParser());

  const api = express.Router();
  api.use(noStore());
  const { dmsHealth, arrival, startedAt } = services;
  api.use(publicRoutes({ auth, config, dmsHealth, arrival, startedAt }));
  api.use(desktopAuthRoutes({ auth, desktopSignIn: services.desktopSignIn, config }));
  api.use(setupRoutes({ firstStart: services.firstStart, config }));

  const ui = express.Router();
  ui.use(requireSession(auth), requireSameOrigin());
  ui.use(uiRoutes({ auth, config, dmsInfo: services.dmsInfo, serviceLog: services.serviceLog }));
  ui.use(settingsRoutes({ settings: services.settings, auth, config }));
  ui.use(dmsTestRoutes({ dmsTest: services.dmsTest }));
  ui.use(rulesRoutes({ rules, runs }));
  ui.use(schemaRoutes({ rules }));
  ui.use(documentsRoutes({ documents: services.documents }));
  ui.use(demoNamesRoutes({ demoNames: services.demoNames }));
  api.use('/ui', ui);
  api.use(runRoutes({ auth, runs, jobs }));
  api.use(tracesRoutes({ auth, history: services.history }));
  api.use(eventsRoutes({ auth, jobs, suggestions: services.suggestions }));
  api.use(suggestionsRoutes({ auth, suggestions: services.suggestions, documents: services.documents }));
  api.use(schedulesRoutes({ auth, schedules: services.schedules }));
  api.use(webhookRoutes({ auth, webhook: services.webhook }));
  api.use(reloadRoutes({ auth, rules }));

  api.use(apiNotFound());
  app.use('/api', api);
  app.use(rendererRoutes(RENDERER_DIST_DIR));

  app.use(errorHandler(logger, serviceSecrets(config)));
  return app;
}
