// The settings page's notify targets: list, add or change, remove and try one. config.yml stays the store
// (its `notify_targets:` mapping); a change applies to the running service at once, since the notifier and the
// rule checks read the live config. Secrets never leave: a password in a URL and a query parameter named like a
// credential (`?token=…`) read as MASK, header values are only named, and sending MASK (or an empty header value)
// back keeps what is stored.
import type { Config } from '../config.js';
import { BadRequestError, ConflictError, NotFoundError } from '../app-errors.js';
import { errorMessage } from '../error-message.js';
import type { Logger } from '../log.js';
import { updateConfigFile } from './config-file.js';
import { CREDENTIAL_NAME, parseNotifyTargets, type NotifyTarget } from '../notify-targets.js';

/** Stands for a stored secret in a URL the page shows (password, `?token=`); sent back, it keeps that secret. */
export const MASK = '********';

export type NotifyTargetView =
  | { name: string; kind: 'http'; url: string; format: 'json' | 'text'; headers: string[] }
  | {
      name: string;
      kind: 'email';
      smtp: string;
      smtp_password_set: boolean;
      from: string;
      to: string[];
      attachment_max_mb: number;
    };

export interface NotifyTargetList {
  targets: NotifyTargetView[];
  /** SVC_NOTIFY_TARGETS sets them: the page shows them but cannot change them. */
  fixed_by_env: boolean;
}

export interface TestSendResult {
  ok: boolean;
  /** The target's answer in words: accepted, or why not. */
  answer: string;
}

export interface NotifyTargetSettings {
  list(): NotifyTargetList;
  /** Adds the target or replaces the one of that name; secrets not sent again are kept. */
  put(name: string, body: unknown): NotifyTargetView;
  remove(name: string): void;
  /** Sends a short test message through the stored target. */
  test(name: string): Promise<TestSendResult>;
}

/** How a message is sent (the service's notifier). */
export type SendTest = (target: string, msg: { title: string; message: string }) => Promise<void>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function masked(raw: string): string {
  const url = new URL(raw);
  if (url.password) url.password = MASK;
  for (const name of new Set(url.searchParams.keys())) if (CREDENTIAL_NAME.test(name)) url.searchParams.set(name, MASK);
  return url.toString();
}

/** `typed` with the stored secrets put back where the page sent MASK. */
function unmasked(typed: string, stored: string | undefined): string {
  let url: URL;
  try {
    url = new URL(typed);
  } catch {
    return typed; // the parser names the bad URL
  }
  const old = stored ? new URL(stored) : null;
  if (url.password === MASK) url.password = old && old.username === url.username ? old.password : '';
  for (const [name, value] of [...url.searchParams]) {
    if (value !== MASK) continue;
    const kept = old?.searchParams.get(name);
    if (kept === null || kept === undefined) throw new BadRequestError(`the URL's "${name}" needs a value.`);
    url.searchParams.set(name, kept);
  }
  return url.toString();
}

function view(name: string, t: NotifyTarget): NotifyTargetView {
  return t.kind === 'http'
    ? { name, kind: 'http', url: masked(t.url), format: t.format, headers: Object.keys(t.headers) }
    : {
        name,
        kind: 'email',
        smtp: masked(t.smtp),
        smtp_password_set: new URL(t.smtp).password !== '',
        from: t.from,
        to: t.to,
        attachment_max_mb: t.attachmentMaxBytes / 1_000_000,
      };
}

/** The config.yml form of a target (what parseNotifyTargets reads). */
function raw(t: NotifyTarget): Record<string, unknown> {
  return t.kind === 'http'
    ? { url: t.url, format: t.format, ...(Object.keys(t.headers).length ? { headers: t.headers } : {}) }
    : { smtp: t.smtp, from: t.from, to: t.to, attachment_max_mb: t.attachmentMaxBytes / 1_000_000 };
}

/** The page's input as config.yml's form, with stored secrets kept where the page did not send new ones. */
function fromInput(body: unknown, stored: NotifyTarget | undefined): Record<string, unknown> {
  if (!isObject(body)) throw new BadRequestError('Send JSON: {"kind": "http", "url": …} or {"kind": "email", …}.');
  if (body.kind === 'http') {
    const headers: Record<string, string> = {};
    if (body.headers !== undefined && !isObject(body.headers))
      throw new BadRequestError('headers is a mapping of header name → value.');
    for (const [header, value] of Object.entries(body.headers ?? {})) {
      const keep = value === '' || value === MASK || value === null;
      const old = stored?.kind === 'http' ? stored.headers[header] : undefined;
      if (keep && old === undefined) throw new BadRequestError(`header "${header}" needs a value.`);
      headers[header] = keep ? (old as string) : String(value);
    }
    const url =
      typeof body.url === 'string' ? unmasked(body.url, stored?.kind === 'http' ? stored.url : undefined) : body.url;
    return { url, format: body.format ?? 'json', ...(Object.keys(headers).length ? { headers } : {}) };
  }
  if (body.kind === 'email') {
    const smtp =
      typeof body.smtp === 'string'
        ? unmasked(body.smtp, stored?.kind === 'email' ? stored.smtp : undefined)
        : body.smtp;
    return { smtp, from: body.from, to: body.to, attachment_max_mb: body.attachment_max_mb ?? undefined };
  }
  throw new BadRequestError('kind is "http" or "email".');
}

export function createNotifyTargetSettings(config: Config, logger: Logger, send: SendTest): NotifyTargetSettings {
  const fixed = () => config.sources?.notifyTargets === 'env' || config.sources?.notifyTargets === 'override';
  const current = (): Record<string, NotifyTarget> => config.notifyTargets ?? {};

  function store(next: Record<string, NotifyTarget>, what: string): void {
    if (fixed())
      throw new ConflictError('The notify targets come from SVC_NOTIFY_TARGETS in the environment; change them there.');
    const rawTargets = Object.fromEntries(Object.entries(next).map(([n, t]) => [n, raw(t)]));
    updateConfigFile(config.dataDir, { notify_targets: Object.keys(next).length ? rawTargets : null });
    config.notifyTargets = Object.keys(next).length ? next : null;
    if (config.sources) config.sources.notifyTargets = 'file';
    logger.info(`settings saved: notify target ${what}`);
  }

  return {
    list: () => ({
      targets: Object.entries(current()).map(([name, t]) => view(name, t)),
      fixed_by_env: fixed(),
    }),

    put(name, body) {
      const input = fromInput(body, current()[name]);
      let parsed: Record<string, NotifyTarget>;
      try {
        parsed = parseNotifyTargets(JSON.stringify({ [name]: input }));
      } catch (err) {
        throw new BadRequestError(errorMessage(err).replace(/^target "[^"]*": /, ''));
      }
      const existed = name in current();
      store({ ...current(), ...parsed }, `"${name}" ${existed ? 'changed' : 'added'}`);
      return view(name, parsed[name]);
    },

    remove(name) {
      if (!(name in current())) throw new NotFoundError(`There is no notify target "${name}".`);
      const next = { ...current() };
      delete next[name];
      store(next, `"${name}" removed`);
    },

    async test(name) {
      if (!(name in current())) throw new NotFoundError(`There is no notify target "${name}".`);
      try {
        await send(name, {
          title: 'dms-rules: test message',
          message: `A test from the dms-rules settings page: the target "${name}" works.`,
        });
        return { ok: true, answer: `Sent: "${name}" accepted the test message.` };
      } catch (err) {
        const reason = (err as { reason?: unknown }).reason;
        return { ok: false, answer: `Not sent: ${typeof reason === 'string' ? reason : errorMessage(err)}` };
      }
    },
  };
}
