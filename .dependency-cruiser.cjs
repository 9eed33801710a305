// The layers of dms-rules, checked on every `npm run check` (`npm run boundaries`).
//
// Read this first. Dependencies point one way, from the edge to the core:
//
//   electron/  the desktop shell: starts the service through server/server.ts, opens a window on it.
//   server/http/  routes and middleware: validate the request, call ONE service function, send the answer.
//              Each router is handed only the services it uses (server/app.ts). Routes never reach a store,
//              a file or the dms themselves; everything long-lived is built once in server/compose.ts.
//   services   server/rules/ (rule files), server/runs/ (the one run pipeline, jobs, webhook),
//              server/history/ (traces and events), server/settings/, server/auth/. A service uses
//              another only through its public modules (listed in services-not-internals below).
//   server/eval/  runs the engine in worker threads within a time budget, for the services.
//   server/engine/  the rule engine: pure functions. No files, no network, no stores, no clock
//              (the time is passed in), so a rule evaluates the same everywhere and tests need no setup.
//   server/dms/  the bottom layer, the only way to Paperless-ngx: typed client, timeouts, retries, its own
//              errors (mapped to HTTP statuses by the error handler). It imports no other layer's code.
//              server/dms/demo/ is the demo dms (an in-memory Paperless with sample documents, used when
//              no dms is configured); only server/dms/dms-connection.ts starts it, and it ships nothing test-only.
//   Shared leaves at server/ root (log, errors, error-message, atomic-write, move-aside, coalesced-writer)
//   import nothing of the layers and may be used by all of them (but app-errors.ts, the HTTP statuses, not by dms/).
//   docs/architecture.md draws the layers and the path of each kind of request.
//   renderer/  the Web UI, bundled for the browser. It shares the server's *types* (`import type`),
//              never its code: server code would drag Node modules into the page.
//   tools/     development tools, never shipped: tools/paperless-sim/ is the Paperless simulator for tests,
//              benchmarks and `npm run dms-sim` (the demo dms plus faults, slow pacing, /__sim control routes).
//
// Nothing in the production code imports test/ or bench/ or a devDependency, no module imports itself
// through a cycle, and no module is an orphan. `build/unused-deps.mjs` (run by `npm run boundaries` after
// this) reports a package.json dependency nothing uses.
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
          '^server/(dms|http|history|rules|runs|settings|auth|cli|eval)/',
          '^server/(app|compose|server|main|config|services|log|atomic-write|move-aside|coalesced-writer|project-paths)[.]ts$',
          '^electron/',
          '^renderer/',
        ],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'shared-leaves-stay-leaves',
      severity: 'error',
      comment:
        'The shared leaves at server/ (config, log, atomic writes, errors, …) are used by every layer, so they import no ' +
        'feature, service or dms code at run time; what they need lives beside them. Types are fine.',
      from: {
        path: '^server/[^/]+[.]ts$',
        pathNot: '^server/(app|compose|server|main|services|process-hooks)[.]ts$',
      },
      to: {
        path: '^server/(dms|http|history|rules|runs|settings|auth|cli|eval|engine)/',
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
        path: '^server/(rules|runs|history|settings|dms|engine|eval)/',
        pathNot: [
          // Request input parsers and limits: pure functions a route uses to validate before calling a service.
          '^server/runs/manual/run-request[.]ts$',
          '^server/history/trace-query[.]ts$',
          // The event kinds and statuses a listing may filter by.
          '^server/history/event-types[.]ts$',
          '^server/settings/settings-input[.]ts$',
          '^server/runs/webhook/(read-body|parse-payload)[.]ts$',
          '^server/rules/validate-file[.]ts$',
          // The edge gives the dms layer's errors their HTTP status (middleware/error-handler.ts).
          '^server/dms/dms-errors[.]ts$',
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
      name: 'production-not-tools',
      severity: 'error',
      comment:
        'tools/ holds development tools (the Paperless simulator with its faults, control routes and CLI); the app never imports them.',
      from: { path: '^(server|electron|renderer)/' },
      to: { path: '^tools/' },
    },
    {
      name: 'demo-dms-only-in-demo-composition',
      severity: 'error',
      comment:
        'The demo dms is started in server/dms/dms-connection.ts only; the rest of the service reaches any dms through the client.',
      from: { path: '^(server|electron)/', pathNot: ['^server/dms/demo/', '^server/dms/dms-connection[.]ts$'] },
      to: { path: '^server/dms/demo/' },
    },
    {
      name: 'demo-dms-ships-nothing-test-only',
      severity: 'error',
      comment:
        'The demo dms ships in the app: it imports no tools, tests or benchmarks (the simulator builds on the demo, not the other way).',
      from: { path: '^server/dms/demo/' },
      to: { path: '^(tools|test|bench)/' },
    },
    {
      name: 'demo-dms-no-dev-dependencies',
      severity: 'error',
      comment: 'The demo dms ships in the app, where devDependencies are not installed.',
      from: { path: '^server/dms/demo/' },
      to: { dependencyTypes: ['npm-dev'] },
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
      name: 'eval-layer',
      severity: 'error',
      comment:
        'server/eval/ runs the engine in worker threads for the services that compose.ts hands it to. It builds on the engine, ' +
        'the dms types and helpers and the shared leaves; it never reaches up into the services, HTTP or the composition (their types are fine).',
      from: { path: '^server/eval/' },
      to: {
        path: [
          '^server/(http|rules|runs|history|settings|auth|cli)/',
          '^server/(app|compose|server|main|services|config)[.]ts$',
          '^(electron|renderer)/',
        ],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'dms-is-the-bottom-layer',
      severity: 'error',
      comment:
        'server/dms/ imports no other layer, not even its types: no services, HTTP, eval, composition, AppError. ' +
        'It throws its own errors (dms/dms-errors.ts); the HTTP error handler gives them a status.',
      from: { path: '^server/dms/', pathNot: '^server/dms/demo/' },
      to: {
        path: [
          '^server/(http|rules|runs|history|settings|auth|eval|cli)/',
          '^server/(app|compose|server|main|services|app-errors)[.]ts$',
          '^(electron|renderer)/',
        ],
      },
    },
    {
      name: 'dms-shares-engine-types-only',
      severity: 'error',
      comment: 'The dms layer may share the engine model types (a custom field value), never its code.',
      from: { path: '^server/dms/', pathNot: '^server/dms/demo/' },
      to: { path: '^server/engine/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'services-not-internals',
      severity: 'error',
      comment:
        'A service uses another only through its public modules: rules/rules.ts; history/trace-store, event-store, ' +
        "event-types, trace-query; auth/auth-service, passwords, setup-code; settings/notify-targets; runs/echo/attribution-mode. Anything else is that service's own business.",
      from: { path: '^server/(rules|runs|history|settings|auth)/' },
      to: {
        path: '^server/(rules|runs|history|settings|auth)/',
        pathNot: [
          '^server/$1/',
          '^server/rules/rules[.]ts$',
          '^server/history/(trace-store|event-store|event-types|trace-query)[.]ts$',
          '^server/auth/(auth-service|passwords|setup-code)[.]ts$',
          '^server/settings/notify-targets[.]ts$',
          '^server/runs/echo/attribution-mode[.]ts$',
        ],
      },
    },
    {
      name: 'no-dev-dependency-in-shipped-code',
      severity: 'error',
      comment:
        'server/ and electron/ run from the installed package, which has no devDependencies (electron itself is provided by the runtime). ' +
        'Types from a devDependency (@types/*) are fine.',
      from: { path: '^(server|electron)/', pathNot: '^server/dms/demo/' },
      to: {
        dependencyTypes: ['npm-dev'],
        dependencyTypesNot: ['type-only'],
        pathNot: '(^|/)node_modules/electron/',
      },
    },
    {
      name: 'renderer-bundles-ui-libraries-only',
      severity: 'error',
      comment:
        'The Web UI is bundled by esbuild into the page, so its libraries are devDependencies; of npm it may use the editor (codemirror) only, ' +
        'never a Node package or a test tool.',
      from: { path: '^renderer/src/' },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown', 'core'],
        pathNot: '(^|/)node_modules/(codemirror|@codemirror/)',
      },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment:
        'A module nothing imports and that imports nothing is dead code, or an entry point that needs an exception here.',
      from: {
        orphan: true,
        pathNot: [
          '(^|/)[.][^/]+[.](js|cjs|mjs|ts|json)$',
          '[.]d[.]ts$',
          // Started by path: bench/limit-bench.ts runs it in a process of its own.
          '^bench/bare-read[.]ts$',
        ],
      },
      to: {},
    },
    {
      name: 'production-not-tests',
      severity: 'error',
      comment: 'Production code never imports tests or benchmarks.',
      from: { path: '^(server|electron|renderer)/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'no-non-package-json',
      severity: 'error',
      comment:
        'A package imported but not listed in package.json is there only by chance (as a dependency of another).',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
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
