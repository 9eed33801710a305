import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { Logger } from '../../server/log.js';
import { handleApi } from '../../server/dms/demo/api-handler.js';
import { listen } from '../../server/dms/demo/demo-dms.js';
import { handleControl } from './control-routes.js';
import { playFaults } from './play-faults.js';
import { createFaultInjector, type FaultInjector } from './faults.js';
import { generateDocuments, plainTag, REALISTIC_FIELDS, REALISTIC_TAG_COUNT } from './generator.js';
import type { SimHooks } from '../../server/dms/demo/http-kit.js';
import { recordCreate } from '../../server/dms/demo/audit-record.js';
import { createPersonEdits, type EditOptions, type SimActor } from './person-edits.js';
import { behaviourOf, resolveProfile, type SimProfile, type SimProfileName } from '../../server/dms/demo/profiles.js';
import { superuser, type SimUser } from '../../server/dms/demo/sim-users.js';
import { registerLimitedUser, type LimitedUserOptions } from './limited-user.js';
import type { SimAccountInput } from '../../server/dms/demo/seed-accounts.js';
import { SIM_USER, type SimDocument, type SimGroup } from '../../server/dms/demo/sim-types.js';
import { createSlowDms, type SlowDms, type SlowDmsProfile } from './slow-dms.js';
import { createStore, type SimStore } from '../../server/dms/demo/store.js';
import { createTaskQueue, type TaskQueueConfig } from './celery-tasks.js';
import { createWorkflowWebhook, type WebhookStats, type WorkflowWebhookConfig } from './workflow-webhook.js';

export interface SimulatorOptions {
  host?: string;
  /** 0 (default) = any free port. */
  port?: number;
  /** API token (40 hex characters like DRF's); random when absent. */
  token?: string;
  /** Load the fixture documents (default true). */
  seedDocuments?: boolean;
  /** Add synthetic documents after the fixtures. */
  generate?: { count: number; seed?: number; realistic?: boolean };
  /** Credentials for `POST /api/token/` and Basic auth (default anna / demo). */
  username?: string;
  password?: string;
  /** Which Paperless-ngx release to pose as: its API version gate and version headers (default '3.0'). */
  profile?: SimProfileName | SimProfile;
  /** A second token whose user is no superuser: it needs model permissions and sees only what it owns or is granted. */
  limitedUser?: LimitedUserOptions;
  /** Users besides the seeded ones (anna 3, ben 4, carla 5), or fields to change on the seeded one with that id. */
  users?: SimAccountInput[];
  /** Groups besides the seeded ones (Family 1, Accounting 2); one with a seeded id replaces it. */
  groups?: SimGroup[];
  /** `PAPERLESS_AUDIT_LOG_ENABLED` (default true): off → nothing is logged and `/history/` answers 400. */
  auditLog?: boolean;
  logger?: Logger;
  /** Behave like a slow real server (bounded workers, time per request and per document row). */
  slow?: SlowDmsProfile;
  /** When the Celery tasks a request queues run (a bulk edit's `bulk_update_documents`); default right after it. */
  tasks?: TaskQueueConfig;
}

export interface Simulator {
  /** Base URL (no trailing slash), e.g. http://127.0.0.1:41234 */
  url: string;
  token: string;
  /** The limited user's token, when `limitedUser` was given. */
  limitedToken: string | null;
  profile: SimProfile;
  store: SimStore;
  faults: FaultInjector;
  /** Requests by `METHOD /route/pattern/` since start or the last reset. */
  counts(): Record<string, number>;
  /** API requests since start or the last reset, in arrival order: `METHOD /path?query` (the first 10,000). */
  requests(): string[];
  /**
   * The same requests with their times (`Date.now()` ms): arrived, got a worker (the slow profile's slots; at once
   * otherwise) and answered. What the bench reads a read's idle workers and its tail from.
   */
  requestTimes(): RequestTimes[];
  /** Clears the request counters and log, the peak/connection figures below and the webhook stats. */
  resetCounts(): void;
  /** Most API requests being handled at the same moment since the last reset. */
  peakInFlight(): number;
  /** TCP connections opened since the last reset (keep-alive reuse keeps this low). */
  connections(): number;
  setWorkflowWebhook(config: WorkflowWebhookConfig | null): void;
  webhookStats(): WebhookStats;
  /** Resolves once every queued workflow webhook was delivered or given up. */
  webhooksIdle(): Promise<void>;
  /** Sends the workflow webhooks held so far (`setWorkflowWebhook({ hold: true })`), after running due tasks; answers how many. */
  releaseWebhooks(): number;
  /** Holds or delays the Celery tasks requests queue from now on (`null`: right after the request). */
  setTasks(config: TaskQueueConfig | null): void;
  /** Runs every waiting task now (a bulk edit's "Document Updated" and `modified`), in order; answers how many. */
  releaseTasks(): number;
  /** Names of the waiting tasks, oldest first. */
  pendingTasks(): string[];
  /** Adds a document as consumption would (fires "Document Added"); missing fields get defaults. */
  addDocument(doc?: Partial<SimDocument>): SimDocument;
  /** The slow-server pacing when started with `slow`, with its busy time. */
  slow: SlowDms | null;
  /** An API token for the user with that username (e.g. 'carla'): a person using the real API, with their rights. */
  tokenFor(username: string): string;
  /** A change made behind the service's back by a person (username) or by a Paperless workflow (null), in the audit log. */
  editAs(id: number, changes: Record<string, unknown>, actor: SimActor, options?: EditOptions): SimDocument;
  addNoteAs(id: number, text: string, actor: SimActor): SimDocument;
  /** Makes `changes` happen inside the next PATCH/PUT or bulk edit of the document, after its save and before its answer. */
  duringNextWrite(id: number, changes: Record<string, unknown>, actor: SimActor, options?: EditOptions): void;
  /** Switches the audit log on or off (`PAPERLESS_AUDIT_LOG_ENABLED`). */
  setAuditLog(enabled: boolean): void;
  close(): Promise<void>;
}

function documentDefaults(store: SimStore, doc: Partial<SimDocument>): Omit<SimDocument, 'id'> & { id?: number } {
  const now = store.now();
  return {
    correspondent: null,
    document_type: null,
    storage_path: null,
    title: 'Neues Dokument',
    content: '',
    tags: store.objects.tags.filter((t) => t.is_inbox_tag).map((t) => t.id),
    created: now.slice(0, 10),
    modified: now,
    added: now,
    archive_serial_number: null,
    original_file_name: 'scan.pdf',
    has_archive: true,
    owner: null,
    notes: [],
    custom_fields: [],
    page_count: 1,
    mime_type: 'application/pdf',
    versions: null,
    ...doc,
  };
}

const MAX_LOGGED_REQUESTS = 10_000;

export interface RequestTimes {
  request: string;
  arrived: number;
  started: number;
  answered: number;
}

/** Starts the Paperless-ngx simulator: an HTTP server speaking the same REST API, for tests, benchmarks and the demo. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const token = options.token ?? randomBytes(20).toString('hex');
  const profile = resolveProfile(options.profile);
  const byToken = new Map<string, SimUser>();
  const limitedToken = options.limitedUser ? (options.limitedUser.token ?? randomBytes(20).toString('hex')) : null;
  const store = createStore({ seedDocuments: options.seedDocuments, users: options.users, groups: options.groups });
  store.audit.enabled = options.auditLog ?? true;
  // Before 2.19.0 tags have no parent: the fixtures' tag tree does not exist there.
  if (!behaviourOf(profile).tagHierarchy) for (const tag of store.objects.tags) delete tag.parent;
  if (options.limitedUser && limitedToken) byToken.set(limitedToken, registerLimitedUser(store, options.limitedUser));
  const faults = createFaultInjector();
  let url = '';
  const webhook = createWorkflowWebhook(store, () => url, behaviourOf(profile).webhookDocId);
  const tasks = createTaskQueue(options.tasks);
  const hooks: SimHooks = {
    queueTask: (name, run) => tasks.enqueue(name, run),
    documentUpdated: (id) => webhook.fire('updated', id),
    documentAdded: (id) => webhook.fire('added', id),
    afterSave: (id) => people.afterSave(id),
  };
  const people = createPersonEdits(store, hooks, byToken, behaviourOf(profile));
  let counters = new Map<string, number>();
  let inFlight = 0;
  let peak = 0;
  let connections = 0;
  const counts = () => Object.fromEntries(counters);
  let arrivals: string[] = [];
  let times: RequestTimes[] = [];
  const resetCounts = () => {
    counters = new Map();
    arrivals = [];
    times = [];
    webhook.resetStats();
    peak = inFlight;
    connections = 0;
  };
  const generate = (count: number, seed: number, realistic = false) => {
    const startId = Math.max(0, ...store.documents.keys()) + 1;
    if (realistic) addRealisticVocabulary(store);
    const options = { realistic, noteId: () => store.nextNoteId() };
    for (const doc of generateDocuments(count, seed, Math.max(startId, 15), options)) store.insertDocument(doc);
    return count;
  };
  const addDocument = (doc: Partial<SimDocument> = {}) => {
    const stored = store.insertDocument(documentDefaults(store, doc));
    recordCreate(store, stored);
    hooks.documentAdded(stored.id);
    return stored;
  };
  if (options.generate) generate(options.generate.count, options.generate.seed ?? 1, options.generate.realistic);

  const slow = options.slow ? createSlowDms(options.slow) : null;
  const apiDeps = {
    pace: slow?.pace,
    store,
    hooks,
    token,
    username: options.username ?? 'anna',
    password: options.password ?? 'demo',
    profile,
    users: { owner: superuser(SIM_USER.id, SIM_USER.username), byToken },
  };
  const count = (key: string) => void counters.set(key, (counters.get(key) ?? 0) + 1);
  const setAuditLog = (enabled: boolean) => void (store.audit.enabled = enabled);
  const controlDeps = {
    token,
    faults,
    webhook,
    tasks,
    counts,
    resetCounts,
    addDocument,
    generate,
    people,
    setAuditLog,
  };

  const server = http.createServer((req, res) => {
    const control = (req.url ?? '').startsWith('/__sim/');
    if (!control) peak = Math.max(peak, ++inFlight);
    const logged = !control && arrivals.length < MAX_LOGGED_REQUESTS;
    const request = `${req.method ?? 'GET'} ${req.url ?? '/'}`;
    if (logged) arrivals.push(request);
    const arrived = Date.now();
    const api = async () => {
      const started = Date.now();
      if (await playFaults(req, res, faults, count)) await handleApi(req, res, apiDeps);
      if (logged) times.push({ request, arrived, started, answered: Date.now() });
    };
    const task = control ? handleControl(req, res, controlDeps) : slow ? slow.serve(api) : api();
    if (!control) void task.finally(() => inFlight--);
    task.catch((err: unknown) => {
      options.logger?.error(`dms simulator: ${(err as Error).message}`);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  server.on('connection', () => connections++);
  url = await listen(server, options.host ?? '127.0.0.1', options.port ?? 0);

  return {
    url,
    token,
    limitedToken,
    profile,
    store,
    faults,
    counts,
    requests: () => [...arrivals],
    requestTimes: () => [...times],
    resetCounts,
    peakInFlight: () => peak,
    connections: () => connections,
    setWorkflowWebhook: (config) => webhook.configure(config),
    webhookStats: () => webhook.stats(),
    // A task still due queues deliveries when it runs: wait for it (held tasks wait for the test).
    webhooksIdle: () => tasks.idle().then(() => webhook.idle()),
    releaseWebhooks: () => {
      tasks.flushDue();
      return webhook.release();
    },
    setTasks: (config) => tasks.configure(config),
    releaseTasks: () => tasks.release(),
    pendingTasks: () => tasks.pending(),
    addDocument,
    slow,
    tokenFor: (username) => people.tokenFor(username),
    editAs: (id, changes, actor, editOptions) => people.editAs(id, changes, actor, editOptions),
    addNoteAs: (id, text, actor) => people.addNoteAs(id, text, actor),
    duringNextWrite: (id, changes, actor, editOptions) => people.duringNextWrite(id, changes, actor, editOptions),
    setAuditLog,
    async close() {
      tasks.close();
      await webhook.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The tags and custom fields realistic generated documents name, beside the seed's (ids kept free of clashes). */
function addRealisticVocabulary(store: SimStore): void {
  for (let id = 1; id <= REALISTIC_TAG_COUNT; id++) {
    if (store.object('tags', id)) continue;
    store.objects.tags.push({ id, ...plainTag(`Ablage ${id}`) });
  }
  for (const field of REALISTIC_FIELDS) {
    if (store.object('custom_fields', field.id)) continue;
    store.objects.custom_fields.push({
      ...field,
      extra_data: { select_options: [], default_currency: null },
      owner: null,
    });
  }
}
