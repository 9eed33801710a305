import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import YAML from 'yaml';
import { parseNotifyTargets, type NotifyTarget } from './notify-targets.js';
import { errorMessage } from './error-message.js';

/** Everything the service can be configured with. The only reader of process.env (docs/configuration.md). */
export interface Config {
  host: string;
  port: number;
  dataDir: string;
  rulesDir: string;
  adminUser: string | null;
  adminPassword: string | null;
  adminPasswordHash: string | null;
  apiToken: string | null;
  dmsUrl: string | null;
  dmsToken: string | null;
  /** The largest dms answer read, in MB: a larger one is cut off and the call fails, naming its size and URL. */
  dmsMaxAnswerMb: number;
  /** Documents one request of a document read asks for (a small read asks for fewer). */
  dmsPageSize: number;
  /** Paperless's web workers: a read keeps this many requests at it and one waiting; webhook deliveries at once. */
  dmsWorkers: number;
  jwtSecret: string | null;
  traceRetention: number;
  webhookDryRun: boolean;
  /** Where `notify` actions may send, by name; null = none. */
  notifyTargets: Record<string, NotifyTarget> | null;
  /** Pauses in seconds before the second, third… try of a notification whose target is down; its length bounds the tries. */
  notifyRetrySeconds: number[];
  /** Worker threads that evaluate rules off the main thread; 0 evaluates on it (no time budget). */
  evalWorkers: number;
  /** Time one rule may take on one document before it fails with a timeout trace. */
  evalBudgetMs: number;
  /** Loop breaker: writes to one document allowed within `loopWindowMinutes` before it is held. */
  loopMaxWrites: number;
  loopWindowMinutes: number;
  /** `create_missing`: new names one document's run may create. */
  createMissingMaxPerRun: number;
  /** `create_missing`: new names one job or catch-up may create (webhook and manual runs: per hour). */
  createMissingMaxPerJob: number;
  /** Polling interval in minutes; 0 = off; null = every 5 minutes when no SVC_API_TOKEN (no webhook), else off. */
  pollMinutes: number | null;
  /** Where the first catch-up starts (ISO date or datetime); null = the moment of the first start. */
  catchUpFrom: string | null;
  /** Bearer token that may only call the dms webhook; unset = the webhook accepts apiToken. */
  webhookToken: string | null;
  /** Extra `host` or `host:port` names the service answers to (DNS-rebinding defence). */
  allowedHosts: string[];
  /** The origin browsers use behind a reverse proxy, e.g. https://rules.example.com. */
  publicUrl: string | null;
  /** Express `trust proxy` value: whose X-Forwarded-For/-Proto to believe; null = nobody's. */
  trustProxy: string | null;
  /** SVC_VAR_* variables, exposed to _vars.yml templates as `env`. */
  templateEnv: Record<string, string>;
  /** Where each setting came from; lets the settings page say when the environment overrides config.yml. */
  sources?: Partial<Record<ConfigField, ConfigSource>>;
  /** Pauses and backoff that tests shorten (never set from the environment or config.yml). */
  timings?: ServiceTimings;
}

/** The service's waits, for tests to shorten: a test computes, it does not sit out production backoff. */
export interface ServiceTimings {
  /** First backoff step of a failed dms request (default 250 ms). */
  dmsRetryBaseMs?: number;
  /** How long a dms request may take before the client gives up on its answer (default 15 s). */
  dmsTimeoutMs?: number;
  /** First pause before a run the dms refused is tried again (default 1 minute). */
  failedRunRetryMs?: number;
  /** `concurrency`: deliveries run at once (default: the dms's web workers, SVC_DMS_WORKERS, at least 2). */
  webhook?: { arrivalWaitMs?: number; arrivalPollMs?: number; concurrency?: number };
  /** First pause before a failed catch-up is tried again (default 30 s). */
  catchUpRetryMs?: number;
  /** How long the dms vocabulary is cached before it is read again (default 60 s). */
  vocabularyTtlMs?: number;
  /** How long a health ping's answer stands before the next one is sent (default 5 s). */
  dmsStatusTtlMs?: number;
}

export type ConfigSource = 'env' | 'file' | 'default' | 'override';
export type ConfigField = Exclude<keyof Config, 'templateEnv' | 'sources' | 'timings'>;

export class ConfigError extends Error {}

/** The dms read plan's settings (server/dms/read-plan.ts): default and accepted range. */
export const DMS_PAGE_SIZE = { default: 500, min: 100, max: 1000 } as const;
export const DMS_WORKERS = { default: 2, min: 1, max: 4 } as const;

type Parse<T> = (raw: string, name: string) => T;

interface Key<K extends keyof Config> {
  field: K;
  env: string;
  doc: string;
  default: (ctx: Defaults) => Config[K];
  parse: Parse<Config[K]>;
  secret?: boolean;
}

interface Defaults {
  cwd: string;
}

const text: Parse<string> = (raw) => raw;
const nullableText: Parse<string | null> = (raw) => raw;

function integer(min: number, max: number): Parse<number> {
  return (raw, name) => {
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
    }
    return Number(raw);
  };
}

const boolean: Parse<boolean> = (raw, name) => {
  const v = raw.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
};

const httpUrl: Parse<string | null> = (raw, name) => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL such as http://paperless.lan:8000, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must start with http:// or https://, got "${raw}"`);
  }
  return url.toString().replace(/\/+$/, '');
};

const notifyTargets: Parse<Record<string, NotifyTarget> | null> = (raw, name) => {
  try {
    return parseNotifyTargets(raw);
  } catch (err) {
    throw new ConfigError(`${name} ${errorMessage(err)}`);
  }
};

const secondsList: Parse<number[]> = (raw, name) => {
  const parts = raw.split(/[\s,]+/).filter(Boolean);
  const bad = parts.find((p) => !/^\d+(\.\d+)?$/.test(p) || Number(p) > 86_400);
  if (bad !== undefined || parts.length > 20) {
    throw new ConfigError(
      `${name} must be up to 20 pauses in seconds (0 to 86400) separated by commas, such as 30,120,600; got "${raw}"`,
    );
  }
  return parts.map(Number);
};

const isoDate: Parse<string | null> = (raw, name) => {
  const at = new Date(/^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00Z` : raw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(at.getTime())) {
    throw new ConfigError(`${name} must be a date such as 2026-01-31 or 2026-01-31T08:00:00Z, got "${raw}"`);
  }
  return at.toISOString();
};

const dmsUrl: Parse<string | null> = (raw, name) => {
  const url = httpUrl(raw, name);
  if (url && (new URL(url).username || new URL(url).password)) {
    // A URL is shown in the UI, the health answer and logs; a secret inside it would leak everywhere.
    throw new ConfigError(
      `${name} must not contain a user name or password; put the Paperless API token in SVC_DMS_TOKEN instead`,
    );
  }
  return url;
};

const publicUrl: Parse<string | null> = (raw, name) => {
  const url = httpUrl(raw, name);
  if (url && new URL(url).origin !== url)
    throw new ConfigError(`${name} must be an origin only, such as https://rules.example.com, got "${raw}"`);
  return url;
};

const HOST_NAME =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

const hostList: Parse<string[]> = (raw, name) => {
  const hosts = raw
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((h) => h.toLowerCase().replace(/\.$/, ''));
  const bad = hosts.find((h) => !HOST_NAME.test(h));
  if (bad !== undefined)
    throw new ConfigError(
      `${name} must list host names such as "rules.lan" or "rules.lan:8484", separated by commas; "${bad}" is not one`,
    );
  return hosts;
};

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

const proxyList: Parse<string | null> = (raw, name) => {
  const entries = raw.split(/[\s,]+/).filter(Boolean);
  const bad = entries.find((e) => {
    const [address, bits, ...rest] = e.split('/');
    return (
      !PROXY_NAMES.has(e) &&
      (rest.length > 0 || net.isIP(address) === 0 || (bits !== undefined && !/^\d{1,3}$/.test(bits)))
    );
  });
  if (bad !== undefined)
    throw new ConfigError(
      `${name} must list proxy addresses (IP, IP/bits, loopback, linklocal or uniquelocal); "${bad}" is not one`,
    );
  return entries.join(',');
};

// The table is the documentation too: `docs/configuration.md` mirrors it and a test keeps them in step.
export const CONFIG_KEYS = [
  {
    field: 'host',
    env: 'SVC_HOST',
    doc: 'Listen address; 0.0.0.0 accepts the dms webhook from the LAN over IPv4, :: over IPv6 and IPv4 (dual stack)',
    default: () => '127.0.0.1',
    parse: text,
  },
  {
    field: 'port',
    env: 'SVC_PORT',
    doc: 'Listen port; 0 picks any free port',
    default: () => 8484,
    parse: integer(0, 65535),
  },
  {
    field: 'dataDir',
    env: 'SVC_DATA_DIR',
    doc: 'Traces, jobs, drafts, the session secret and config.yml',
    default: (d) => path.join(d.cwd, 'data'),
    parse: text,
  },
  {
    field: 'rulesDir',
    env: 'SVC_RULES_DIR',
    doc: 'The rules directory (rules.d)',
    default: (d) => path.join(d.cwd, 'rules.d'),
    parse: text,
  },
  {
    field: 'adminUser',
    env: 'SVC_ADMIN_USER',
    doc: 'The admin account name; unset = every login fails',
    default: () => null,
    parse: nullableText,
  },
  {
    field: 'adminPassword',
    env: 'SVC_ADMIN_PASSWORD',
    doc: 'The admin password in clear',
    default: () => null,
    parse: nullableText,
    secret: true,
  },
  {
    field: 'adminPasswordHash',
    env: 'SVC_ADMIN_PASSWORD_HASH',
    doc: 'Alternative to the clear password: an scrypt hash from `npm run hash-password`',
    default: () => null,
    parse: nullableText,
    secret: true,
  },
  {
    field: 'apiToken',
    env: 'SVC_API_TOKEN',
    doc: 'Bearer token for the webhook and the shared routes; unset = bearer access refused',
    default: () => null,
    parse: nullableText,
    secret: true,
  },
  {
    field: 'dmsUrl',
    env: 'SVC_DMS_URL',
    doc: 'Base URL of Paperless-ngx; unset = the built-in demo dms',
    default: () => null,
    parse: dmsUrl,
  },
  {
    field: 'dmsToken',
    env: 'SVC_DMS_TOKEN',
    doc: 'Paperless-ngx API token (sent as `Authorization: Token …`)',
    default: () => null,
    parse: nullableText,
    secret: true,
  },
  {
    field: 'dmsMaxAnswerMb',
    env: 'SVC_DMS_MAX_ANSWER_MB',
    doc: 'The largest answer read from the dms, in MB; a larger one is cut off and the run fails',
    default: () => 64,
    parse: integer(1, 4096),
  },
  {
    field: 'dmsPageSize',
    env: 'SVC_DMS_PAGE_SIZE',
    doc: 'Documents one request of a run-all asks Paperless for; a small run-all asks for fewer, down to 100',
    default: () => DMS_PAGE_SIZE.default,
    parse: integer(DMS_PAGE_SIZE.min, DMS_PAGE_SIZE.max),
  },
  {
    field: 'dmsWorkers',
    env: 'SVC_DMS_WORKERS',
    doc: "Paperless's web workers (PAPERLESS_WEBSERVER_WORKERS, 4 or more: 4): a run-all keeps this many requests at it and one waiting; as many webhook deliveries run at once (at least 2)",
    default: () => DMS_WORKERS.default,
    parse: integer(DMS_WORKERS.min, DMS_WORKERS.max),
  },
  {
    field: 'jwtSecret',
    env: 'SVC_JWT_SECRET',
    doc: 'Session signing key; unset = generated once and kept in the data dir',
    default: () => null,
    parse: nullableText,
    secret: true,
  },
  {
    field: 'traceRetention',
    env: 'SVC_TRACE_RETENTION',
    doc: 'How many traces are kept; the oldest are dropped first',
    default: () => 20000,
    parse: integer(100, 10_000_000),
  },
  {
    field: 'webhookDryRun',
    env: 'SVC_WEBHOOK_DRY_RUN',
    doc: 'Webhook-triggered runs only plan changes (for trying a new setup)',
    default: () => false,
    parse: boolean,
  },
  {
    field: 'notifyTargets',
    env: 'SVC_NOTIFY_TARGETS',
    doc: 'Targets of `notify` actions: name → HTTP endpoint or SMTP e-mail (YAML/JSON; in config.yml a mapping `notify_targets:`)',
    default: () => null,
    parse: notifyTargets,
    secret: true,
  },
  {
    field: 'notifyRetrySeconds',
    env: 'SVC_NOTIFY_RETRY_SECONDS',
    doc: 'Pauses in seconds before each new try of a notification whose target is down or busy; the list bounds the tries (empty = one try)',
    default: () => [30, 120, 600, 1800, 7200],
    parse: secondsList,
  },
  {
    field: 'evalWorkers',
    env: 'SVC_EVAL_WORKERS',
    doc: 'Worker threads that evaluate rules (default: one per core beside the main thread, 1 to 4); 0 = on the main thread, without a time budget',
    default: () => Math.max(1, Math.min(4, os.availableParallelism() - 1)),
    parse: integer(0, 64),
  },
  {
    field: 'evalBudgetMs',
    env: 'SVC_EVAL_BUDGET_MS',
    doc: 'Time one rule may take on one document before it stops with a timeout trace (and one example of its tests: before it fails)',
    default: () => 5000,
    parse: integer(50, 600_000),
  },
  {
    field: 'loopMaxWrites',
    env: 'SVC_LOOP_MAX_WRITES',
    doc: 'Loop breaker: writes to one document within the loop window before the service stops writing it',
    default: () => 5,
    parse: integer(1, 1000),
  },
  {
    field: 'loopWindowMinutes',
    env: 'SVC_LOOP_WINDOW_MINUTES',
    doc: 'Loop breaker: the window in minutes over which writes to one document are counted',
    default: () => 10,
    parse: integer(1, 1440),
  },
  {
    field: 'createMissingMaxPerRun',
    env: 'SVC_CREATE_MISSING_MAX_PER_RUN',
    doc: "create_missing: new tags, correspondents, document types and storage paths one document's run may create",
    default: () => 10,
    parse: integer(0, 1000),
  },
  {
    field: 'createMissingMaxPerJob',
    env: 'SVC_CREATE_MISSING_MAX_PER_JOB',
    doc: 'create_missing: new names one job or catch-up may create; webhook and manual runs share this many per hour',
    default: () => 50,
    parse: integer(0, 100_000),
  },
  {
    field: 'pollMinutes',
    env: 'SVC_POLL_MINUTES',
    doc: 'Polling: check the dms for new and changed documents every N minutes; 0 = off; unset = 5 without SVC_API_TOKEN, else off',
    default: () => null,
    parse: integer(0, 1440),
  },
  {
    field: 'catchUpFrom',
    env: 'SVC_CATCH_UP_FROM',
    doc: 'Where the very first catch-up starts (a date); unset = the first start, so an existing archive is not run',
    default: () => null,
    parse: isoDate,
  },
  {
    field: 'webhookToken',
    env: 'SVC_WEBHOOK_TOKEN',
    doc: 'Bearer token for `POST /api/webhook/dms` only; unset = the webhook accepts SVC_API_TOKEN',
    default: () => null,
    parse: nullableText,
    secret: true,
  },
  {
    field: 'allowedHosts',
    env: 'SVC_ALLOWED_HOSTS',
    doc: 'Extra host names (or host:port) the service answers to besides localhost, 127.0.0.1 and [::1]; other Host headers get 421',
    default: () => [],
    parse: hostList,
  },
  {
    field: 'publicUrl',
    env: 'SVC_PUBLIC_URL',
    doc: 'The origin browsers use behind a reverse proxy (e.g. https://rules.example.com); allowed as Host and as Origin',
    default: () => null,
    parse: publicUrl,
  },
  {
    field: 'trustProxy',
    env: 'SVC_TRUST_PROXY',
    doc: 'Addresses of a reverse proxy whose X-Forwarded-For/-Proto are believed (e.g. loopback or 10.0.0.2); unset = none',
    default: () => null,
    parse: proxyList,
  },
] as const satisfies readonly Key<keyof Config>[];

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Values that win over everything, e.g. the desktop app's userData paths. */
  overrides?: Partial<Config>;
}

/** Builds the config from env, then `config.yml` in the data dir, then defaults; throws ConfigError naming the variable. */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const pick = (name: string) => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : value;
  };

  const dataDirRaw = options.overrides?.dataDir ?? pick('SVC_DATA_DIR');
  const dataDir = path.resolve(cwd, dataDirRaw ?? path.join(cwd, 'data'));
  const fileValues = readConfigFile(dataDir);

  const config = { templateEnv: templateEnvFrom(env) } as Record<string, unknown>;
  const sources: Partial<Record<ConfigField, ConfigSource>> = {};
  for (const key of CONFIG_KEYS) {
    const fromEnv = pick(key.env);
    const raw = fromEnv ?? fileValues[key.env];
    config[key.field] = raw === undefined ? key.default({ cwd }) : key.parse(raw, key.env);
    sources[key.field] = fromEnv !== undefined ? 'env' : raw !== undefined ? 'file' : 'default';
  }
  Object.assign(config, options.overrides);
  for (const key of CONFIG_KEYS) if (options.overrides?.[key.field] !== undefined) sources[key.field] = 'override';
  config.sources = sources;
  const result = config as unknown as Config;
  result.dataDir = path.resolve(cwd, result.dataDir);
  result.rulesDir = path.resolve(cwd, result.rulesDir);
  if (result.adminPassword && result.adminPasswordHash) {
    throw new ConfigError('Set only one of SVC_ADMIN_PASSWORD and SVC_ADMIN_PASSWORD_HASH');
  }
  if (result.adminPasswordHash && !result.adminPasswordHash.startsWith('scrypt$')) {
    throw new ConfigError(
      'SVC_ADMIN_PASSWORD_HASH must be a hash made by `npm run hash-password` (it starts with "scrypt$")',
    );
  }
  return result;
}

/** The variable a config.yml key stands for: `dms_url`, `svc_dms_url` and `SVC_DMS_URL` all mean SVC_DMS_URL. */
export const envNameOf = (key: string): string =>
  (key.toUpperCase().startsWith('SVC_') ? key : `SVC_${key}`).toUpperCase();

/** config.yml keys are the variable names in lower case, with or without the `svc_` prefix. */
function readConfigFile(dataDir: string): Record<string, string> {
  const file = path.join(dataDir, 'config.yml');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(`${file} could not be read: ${errorMessage(err)}`);
  }
  let parsed: unknown;
  try {
    parsed = YAML.parse(text);
  } catch (err) {
    throw new ConfigError(`${file} is not valid YAML: ${errorMessage(err)}`);
  }
  if (parsed == null) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`${file} must be a mapping of settings such as "dms_url: http://paperless.lan:8000"`);
  }
  const known = new Set<string>(CONFIG_KEYS.map((k) => k.env));
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    const env = envNameOf(key);
    if (!known.has(env)) throw new ConfigError(`${file}: unknown setting "${key}"`);
    // A structured setting (notify_targets) travels as JSON text, like its environment variable.
    if (value !== null && value !== '') values[env] = typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return values;
}

function templateEnvFrom(env: NodeJS.ProcessEnv): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith('SVC_VAR_') && value !== undefined) vars[name] = value;
  }
  return vars;
}

/** Checks the directories the service needs, creating missing ones; throws ConfigError naming the variable. */
export function prepareDirectories(config: Config): void {
  ensureWritableDir(config.dataDir, 'SVC_DATA_DIR');
  ensureWritableDir(config.rulesDir, 'SVC_RULES_DIR');
}

function ensureWritableDir(dir: string, name: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    if (!fs.statSync(dir).isDirectory()) throw new Error('not a directory');
    fs.accessSync(dir, fs.constants.R_OK | fs.constants.W_OK);
  } catch (err) {
    throw new ConfigError(`${name} (${dir}) is not a readable and writable directory: ${errorMessage(err)}`);
  }
}

/** One line per setting, secrets masked: safe to log and to show in the UI. */
export function describeConfig(config: Config): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of CONFIG_KEYS) {
    const value = config[key.field];
    if (value === null || (Array.isArray(value) && value.length === 0)) out[key.env] = '(unset)';
    else if ('secret' in key && key.secret) out[key.env] = '(set)';
    else out[key.env] = String(value);
  }
  return out;
}
