/**
 * The `notify` action: compiled (when, attach, body and header templates checked) and rendered into a
 * planned notification. The engine only renders; `server/runs/notify/` decides whether it goes out.
 */
import { ConversionError, RuleCompileError, formatPath, type RulePath } from './rule-errors.js';
import { isTemplateText, type CompiledTemplate } from './templates.js';

/** Which real runs send: see docs/rules.md#notify. */
export const NOTIFY_WHEN = ['on_change', 'always', 'once'] as const;
export type NotifyWhen = (typeof NOTIFY_WHEN)[number];

/** Which file of the document an e-mail carries: Paperless's download with or without `?original=true`. */
export const NOTIFY_ATTACH = ['original', 'archive'] as const;
export type NotifyAttach = (typeof NOTIFY_ATTACH)[number];

/**
 * Headers a rule may not set: the connection's own (Host, Content-Length…), the service's `Idempotency-Key`,
 * and credentials, which belong in the target's settings (rule files are readable in the UI).
 */
export const FORBIDDEN_NOTIFY_HEADERS = [
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'idempotency-key',
  'authorization',
  'proxy-authorization',
  'cookie',
] as const;

/** RFC 9110 token: the characters a header name may have. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What an HTTP header value may carry: visible Latin-1 and spaces or tabs, no line breaks. */
const HEADER_VALUE = /^[\t\x20-\x7e\xa0-\xff]*$/;

export interface NotifyPayload {
  kind: 'notify';
  to: string;
  /** `to: "{{ doc.owner }}"`: the target's name comes from the document; still one of the settings' targets. */
  toTemplate: CompiledTemplate | null;
  when: NotifyWhen;
  attach: NotifyAttach | null;
  title: CompiledTemplate | null;
  message: CompiledTemplate | null;
  /** HTTP targets: the request body, instead of the target format's own. */
  body: CompiledTemplate | null;
  /** HTTP targets: extra headers, name → value template. */
  headers: Array<{ name: string; template: CompiledTemplate }>;
}

/** One message a matched rule wants sent, rendered. */
export interface PlannedNotification {
  /** The action's trace path, e.g. `actions/2`. */
  path: string;
  target: string;
  when: NotifyWhen;
  title: string;
  message: string;
  attach?: NotifyAttach;
  body?: string;
  headers?: Record<string, string>;
}

type CompileTemplate = (source: unknown, path: RulePath, what: string) => CompiledTemplate;

const SHAPE =
  'notify takes { to: <target name from the settings>, message: "…" } and optionally title, when, attach, body, headers';
const KEYS = ['to', 'title', 'message', 'when', 'attach', 'body', 'headers'];

/** Checks a notify body and compiles its templates; every mistake is a save error at its key. */
export function compileNotify(body: unknown, at: RulePath, template: CompileTemplate): NotifyPayload {
  const n = body as Record<string, unknown> | null;
  if (typeof n !== 'object' || n === null || Array.isArray(n) || typeof n.to !== 'string' || n.to.trim() === '')
    throw new RuleCompileError(at, SHAPE);
  const unknown = Object.keys(n).find((k) => !KEYS.includes(k));
  if (unknown) throw new RuleCompileError([...at, unknown], `unknown notify key "${unknown}"; ${SHAPE}`);
  const when = n.when ?? 'on_change';
  if (!(NOTIFY_WHEN as readonly unknown[]).includes(when))
    throw new RuleCompileError(
      [...at, 'when'],
      `when is on_change (the default: when the rule's changes are written), always (each run that matches) or once (once per document)`,
    );
  const attach = n.attach ?? null;
  if (attach !== null && !(NOTIFY_ATTACH as readonly unknown[]).includes(attach))
    throw new RuleCompileError(
      [...at, 'attach'],
      'attach is original (the file as it was uploaded) or archive (the archived PDF)',
    );
  if (n.message === undefined && n.body === undefined)
    throw new RuleCompileError(at, 'notify needs a message (or, for an HTTP target, a body)');
  if (attach !== null && (n.body !== undefined || n.headers !== undefined))
    throw new RuleCompileError(
      [...at, 'attach'],
      'attach is for e-mail targets, body and headers for HTTP targets; one notify cannot have both',
    );
  return {
    kind: 'notify',
    to: n.to.trim(),
    toTemplate: isTemplateText(n.to) ? template(n.to, [...at, 'to'], 'the notify target') : null,
    when: when as NotifyWhen,
    attach: attach as NotifyAttach | null,
    title: n.title === undefined ? null : template(n.title, [...at, 'title'], 'the notify title'),
    message: n.message === undefined ? null : template(n.message, [...at, 'message'], 'the notify message'),
    body: n.body === undefined ? null : template(n.body, [...at, 'body'], 'the notify body'),
    headers: compileHeaders(n.headers, [...at, 'headers'], template),
  };
}

function compileHeaders(
  headers: unknown,
  at: RulePath,
  template: CompileTemplate,
): Array<{ name: string; template: CompiledTemplate }> {
  if (headers === undefined) return [];
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers))
    throw new RuleCompileError(at, 'headers is a mapping of header name → value (a template), e.g. { Priority: high }');
  const seen = new Set<string>();
  return Object.entries(headers as Record<string, unknown>).map(([name, value]) => {
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name))
      throw new RuleCompileError([...at, name], `"${name}" is not a valid HTTP header name (letters, digits, - and _)`);
    if ((FORBIDDEN_NOTIFY_HEADERS as readonly string[]).includes(lower))
      throw new RuleCompileError(
        [...at, name],
        lower === 'authorization' || lower === 'proxy-authorization' || lower === 'cookie'
          ? `a rule may not set ${name}: credentials belong in the target's headers in the settings (notify_targets)`
          : `a rule may not set ${name}: the service sets it for each request`,
      );
    if (seen.has(lower)) throw new RuleCompileError([...at, name], `header ${name} is given twice`);
    seen.add(lower);
    return { name, template: template(value, [...at, name], `header ${name}`) };
  });
}

/** Renders a compiled notify; header values that HTTP cannot carry are a rule error, not a failed send later. */
export function renderNotify(
  p: NotifyPayload,
  path: RulePath,
  render: (t: CompiledTemplate, at: RulePath) => string,
): PlannedNotification {
  const target = p.toTemplate ? render(p.toTemplate, [...path, 'notify', 'to']).trim() : p.to;
  if (!target)
    throw new ConversionError(
      `notify to ${JSON.stringify(p.to)} rendered no target name; give a default, e.g. {{ doc.owner | default: 'office' }}`,
    );
  const planned: PlannedNotification = {
    path: formatPath(path),
    target,
    when: p.when,
    title: p.title ? render(p.title, [...path, 'notify', 'title']).trim() : '',
    message: p.message ? render(p.message, [...path, 'notify', 'message']).trim() : '',
  };
  if (p.attach) planned.attach = p.attach;
  if (p.body) planned.body = render(p.body, [...path, 'notify', 'body']);
  if (p.headers.length > 0) {
    planned.headers = {};
    for (const { name, template } of p.headers) {
      const value = render(template, [...path, 'notify', 'headers', name]).trim();
      if (!HEADER_VALUE.test(value))
        throw new ConversionError(
          `notify header ${name}: the value has a line break or characters HTTP headers cannot carry (only Latin-1); encode it, e.g. with | url_encode`,
        );
      planned.headers[name] = value;
    }
  }
  return planned;
}

/**
 * Whether a real run sends a notify of a matched rule: `on_change` only when the rule's other changes are
 * written (`ruleWrites`) or the document was just added; `always` and `once` whenever it matched (`once` is
 * then kept to one message per document by the run layer). The run layer and rule tests both ask this.
 */
export function notifyFires(when: NotifyWhen, trigger: string, ruleWrites: boolean): boolean {
  return when !== 'on_change' || trigger === 'added' || ruleWrites;
}

/** The trace detail of a planned notify: where it goes, what it says, and how. */
export function describeNotify(n: PlannedNotification, describe: (v: unknown) => string): string {
  const parts = [`to ${n.target}:`];
  if (n.title) parts.push(describe(n.title));
  if (n.message) parts.push(describe(n.message));
  if (n.body !== undefined) parts.push(`body ${describe(n.body)}`);
  if (n.headers) parts.push(`headers ${Object.keys(n.headers).join(', ')}`);
  if (n.attach) parts.push(`with the ${n.attach} file attached`);
  if (n.when !== 'on_change') parts.push(`(when: ${n.when})`);
  return parts.join(' ');
}
