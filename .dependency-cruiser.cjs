// The layers of dms-rules, checked on every `npm run check` (`npm run boundaries`).
//
// Read this first. Dependencies point one way, from the edge to the core:
//
//   electron/  the desktop shell: starts the service through server/server.ts, opens a window on it.
//   server/http/  routes and middleware: validate the request, call ONE function on `Services`
//              (server/services.ts), send the answer. Routes never reach a store, a file or the dms
//              themselves; everything long-lived is built once in server/compose.ts and handed in.
//   services   server/rules/ (rule files), server/runs/ (the one run pipeline, jobs, webhook),
//              server/history/ (traces and events), server/settings/, server/auth/.
//   server/dms/  the only way to Paperless-ngx: typed client, timeouts, retries, errors mapped.
//              server/dms/simulator/ is a fake Paperless for tests, benchmarks and the demo mode;
//              production code reaches it only where the demo dms is composed (dms-connection.ts).
//   server/engine/  the rule engine: pure functions. No files, no network, no stores, no clock
//              (the time is passed in), so a rule evaluates the same everywhere and tests need no setup.
//   renderer/  the Web UI, bundled for the browser. It shares the server's *types* (`import type`),
//              never its code: server code would drag Node modules into the page.
//
// Nothing in the production code imports test/ or bench/, and no module imports itself through a cycle.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle means two modules are really one; split out what both need.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'engine-is-pure',
      severity: 'error',
      comment:
        'server/engine/ is pure: no dms runtime, stores, HTTP, services, files, network or processes. Types from dms/types.ts are fine.',
      from: { path: '^server/engine/' },
      to: {
        path: [
          '^server/(dms|http|history|rules|runs|settings|auth|cli)/',
          '^server/(app|compose|server|main|config|services|log|atomic-write|project-paths)[.]ts$',
          '^electron/',
          '^renderer/',
        ],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'engine-no-io-modules',
      severity: 'error',
      comment: 'server/engine/ reads no files and talks to no network; the clock is injected.',
      from: { path: '^server/engine/' },
      to: {
        path: '^(node:)?(fs|fs/promises|http|https|http2|net|tls|dgram|dns|child_process|cluster|worker_threads)$|^(express|lowdb|undici|busboy|cookie-parser|jsonwebtoken)(/|$)',
      },
    },
    {
      name: 'routes-only-through-services',
      severity: 'error',
      comment:
        'server/http/ reaches rules, runs, history, settings, the dms and the engine only through the Services object it is handed; ' +
        'it may import their types and the pure parsers that validate request input.',
      from: { path: '^server/http/' },
      to: {
        path: '^server/(rules|runs|history|settings|dms|engine)/',
        pathNot: [
          // Request input parsers and limits: pure functions a route uses to validate before calling a service.
          '^server/runs/run-query[.]ts$',
          '^server/history/trace-query[.]ts$',
          '^server/settings/settings-input[.]ts$',
          '^server/runs/webhook/(read-body|parse-payload)[.]ts$',
          '^server/rules/validate-file[.]ts$',
          // The edge gives the dms layer's errors their HTTP status (middleware/error-handler.ts).
          '^server/dms/errors[.]ts$',
        ],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'renderer-imports-server-types-only',
      severity: 'error',
      comment: 'The Web UI may share the server types (import type / export type), never its code.',
      from: { path: '^renderer/' },
      to: { path: '^(server|electron)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'simulator-only-in-demo-composition',
      severity: 'error',
      comment:
        'The Paperless simulator is for tests, benchmarks and the demo dms, composed in server/dms/dms-connection.ts only.',
      from: { path: '^(server|electron)/', pathNot: ['^server/dms/simulator/', '^server/dms/dms-connection[.]ts$'] },
      to: { path: '^server/dms/simulator/' },
    },
    {
      name: 'server-not-electron-or-renderer',
      severity: 'error',
      comment:
        'The service runs inside Electron and on its own; it never imports the shell, the UI or the electron package.',
      from: { path: '^server/' },
      to: { path: ['^electron/', '^renderer/', '^electron$'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'production-not-tests',
      severity: 'error',
      comment: 'Production code never imports tests or benchmarks.',
      from: { path: '^(server|electron|renderer)/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that does not resolve is a typo or a missing dependency.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    // type-only imports count as dependencies, so the type-only exceptions above can be told apart.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
