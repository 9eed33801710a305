// Settings → Notification targets: where `notify` actions send. Listed with what is set (never a secret's value),
// added, changed, removed and tried ("Send a test" shows the target's answer). The service keeps them in config.yml.
import { errorMessage, request } from '../api.js';
import { h, say } from '../dom.js';
import type {
  NotifyTargetList,
  NotifyTargetView,
  TestSendResult,
} from '../../../server/settings/notify-target-settings.js';
import { confirmDialog } from './confirm-dialog.js';

/** The service's stand-in for a stored secret in a URL (password, `?token=`); sent back, it keeps that secret. */
const MASK = '********';
const API = '/api/ui/settings/notify-targets';
const targetUrl = (name: string) => `${API}/${encodeURIComponent(name)}`;

type HttpView = Extract<NotifyTargetView, { kind: 'http' }>;
type EmailView = Extract<NotifyTargetView, { kind: 'email' }>;

function input(id: string, value = '', attrs: Record<string, string | boolean> = {}): HTMLInputElement {
  return h('input', { attrs: { id, name: id, value, ...attrs } });
}

function row(label: string, control: HTMLElement, hint?: string): HTMLElement {
  return h(
    'div',
    { class: 'field' },
    h('label', { attrs: { for: control.id } }, label),
    control,
    hint ? h('p', { class: 'muted small' }, hint) : null,
  );
}

/** What a target stands for, in one line: where it sends and which secrets it holds. */
function summary(t: NotifyTargetView): string {
  if (t.kind === 'http') {
    const headers = t.headers.map((name) => `${name}: set`).join(', ');
    return `HTTP (${t.format}) to ${t.url}${headers ? ` · headers ${headers}` : ''}`;
  }
  const smtp = new URL(t.smtp);
  return `Mail via ${smtp.host} to ${t.to.join(', ')} from ${t.from} · SMTP password ${t.smtp_password_set ? 'set' : 'not set'}`;
}

/** The add/edit form for one target; `existing` fills it (its name then stays). */
function targetForm(kind: 'http' | 'email', existing: NotifyTargetView | null, done: () => void): HTMLElement {
  const status = h('p', { class: 'status', attrs: { role: 'alert', id: 'target-status', hidden: true } });
  const name = input('target-name', existing?.name ?? '', {
    required: true,
    placeholder: 'phone',
    readonly: !!existing,
  });
  const fields: HTMLElement[] = [row('Name (used in rules: notify: { to: … })', name, 'Letters, digits, - and _.')];
  let body: () => Record<string, unknown>;
  if (kind === 'http') {
    const t = existing as HttpView | null;
    const url = input('target-url', t?.url ?? '', {
      type: 'url',
      required: true,
      placeholder: 'https://ntfy.sh/my-topic',
    });
    const format = h(
      'select',
      { attrs: { id: 'target-format' } },
      h('option', { attrs: { value: 'json' } }, 'JSON {"title", "message"} (Gotify, Home Assistant)'),
      h('option', { attrs: { value: 'text' } }, 'Plain text with a Title header (ntfy)'),
    );
    format.value = t?.format ?? 'json';
    const headers = h('div', { class: 'headers' });
    let rows = 0; // ids stay unique when a row is removed and another added
    const addHeader = (headerName = '', stored = false): void => {
      const n = rows++;
      const key = input(`target-header-name-${n}`, headerName, { placeholder: 'Authorization' });
      const value = input(`target-header-value-${n}`, '', {
        type: 'password',
        autocomplete: 'new-password',
        placeholder: stored ? 'set — leave empty to keep' : 'value',
        'aria-label': 'Header value',
      });
      key.setAttribute('aria-label', 'Header name');
      const remove = h('button', { class: 'link', attrs: { type: 'button' } }, 'Remove');
      const line = h('div', { class: 'header-row' }, key, value, remove);
      remove.addEventListener('click', () => line.remove());
      headers.append(line);
    };
    for (const header of t?.headers ?? []) addHeader(header, true);
    const more = h('button', { attrs: { type: 'button', id: 'target-add-header' } }, 'Add a header');
    more.addEventListener('click', () => addHeader());
    fields.push(
      row('URL', url),
      row('Format', format),
      h('div', { class: 'field' }, h('p', {}, 'Headers (values are never shown again)'), headers, more),
    );
    body = () => {
      const sent: Record<string, string> = {};
      for (const line of headers.querySelectorAll('.header-row')) {
        const [key, value] = [...line.querySelectorAll('input')];
        if (key.value.trim()) sent[key.value.trim()] = value.value;
      }
      return { kind, url: url.value.trim(), format: format.value, headers: sent };
    };
  } else {
    const t = existing as EmailView | null;
    const stored = t ? new URL(t.smtp) : null;
    if (stored) stored.password = '';
    const smtp = input('target-smtp', stored?.toString() ?? '', {
      required: true,
      placeholder: 'smtp://user@mail.example.org:587 (smtps://… for port 465)',
    });
    const password = input('target-smtp-password', '', {
      type: 'password',
      autocomplete: 'new-password',
      placeholder: t?.smtp_password_set ? 'set — leave empty to keep' : 'not set',
    });
    const from = input('target-from', t?.from ?? '', { type: 'email', required: true });
    const to = input('target-to', t?.to.join(', ') ?? '', {
      required: true,
      placeholder: 'a@example.org, b@example.org',
    });
    const maxMb = input('target-max-mb', String(t?.attachment_max_mb ?? 10), { type: 'number', min: '1', max: '1000' });
    fields.push(
      row('SMTP server', smtp),
      row('SMTP password', password),
      row('From', from),
      row('To (comma-separated)', to),
      row('Largest attachment (MB)', maxMb),
    );
    body = () => {
      let server = smtp.value.trim();
      try {
        const parsed = new URL(server);
        if (password.value) parsed.password = password.value;
        else if (t?.smtp_password_set && parsed.username) parsed.password = MASK;
        server = parsed.toString();
      } catch {
        // sent as typed: the service names what is wrong with it
      }
      const list = to.value
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean);
      return { kind, smtp: server, from: from.value.trim(), to: list, attachment_max_mb: Number(maxMb.value) };
    };
  }
  const save = h('button', { class: 'primary', attrs: { type: 'submit', id: 'target-save' } }, 'Save target');
  const cancel = h('button', { attrs: { type: 'button', id: 'target-cancel' } }, 'Cancel');
  const form = h(
    'form',
    {
      class: 'target-form',
      attrs: { id: 'target-form', 'aria-label': existing ? `Edit ${existing.name}` : 'New target' },
    },
    h('h3', {}, existing ? `Edit “${existing.name}”` : kind === 'http' ? 'New HTTP target' : 'New mail target'),
    ...fields,
    status,
    h('div', { class: 'buttons' }, save, cancel),
  );
  cancel.addEventListener('click', done);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    save.disabled = true;
    request(targetUrl(name.value.trim()), { method: 'PUT', json: body() })
      .then(done)
      .catch((err: unknown) => say(status, `Not saved: ${errorMessage(err)}`, 'error'))
      .finally(() => (save.disabled = false));
  });
  return form;
}

/** The whole section: fills itself from the service and refreshes after each change. */
export function notifyTargetsSection(): HTMLElement {
  const listHost = h('div', { class: 'target-list', attrs: { id: 'notify-target-list' } });
  const formHost = h('div');
  const addHttp = h('button', { attrs: { type: 'button', id: 'add-http-target' } }, 'Add an HTTP target');
  const addMail = h('button', { attrs: { type: 'button', id: 'add-mail-target' } }, 'Add a mail target');
  const adders = h('div', { class: 'buttons' }, addHttp, addMail);
  const section = h(
    'section',
    { class: 'notify-targets', attrs: { 'aria-labelledby': 'notify-targets-title' } },
    h('h2', { attrs: { id: 'notify-targets-title' } }, 'Notification targets'),
    h(
      'p',
      { class: 'muted small' },
      'Where rules send messages with notify: { to: name, message: … }. Kept in config.yml.',
    ),
    listHost,
    adders,
    formHost,
  );

  /** Opens the form; when it closes (saved or cancelled) the keyboard goes back to `opener`. */
  const open = (kind: 'http' | 'email', existing: NotifyTargetView | null, opener: HTMLElement): void => {
    const form = targetForm(kind, existing, () => {
      formHost.replaceChildren();
      void load().then(() => {
        const again = existing && listHost.querySelector<HTMLElement>(`[data-target="${existing.name}"] .edit`);
        (again ?? opener).focus();
      });
    });
    formHost.replaceChildren(form);
    form.querySelector<HTMLElement>(existing ? 'input:not([readonly])' : 'input')?.focus();
  };
  addHttp.addEventListener('click', () => open('http', null, addHttp));
  addMail.addEventListener('click', () => open('email', null, addMail));

  function item(t: NotifyTargetView, fixed: boolean): HTMLElement {
    const answer = h('p', { class: 'status', attrs: { role: 'status', hidden: true } });
    const edit = h('button', { class: 'edit', attrs: { type: 'button', hidden: fixed } }, 'Edit');
    const test = h('button', { class: 'test', attrs: { type: 'button' } }, 'Send a test');
    const remove = h('button', { class: 'danger remove', attrs: { type: 'button', hidden: fixed } }, 'Remove');
    edit.addEventListener('click', () => open(t.kind, t, edit));
    test.addEventListener('click', () => {
      test.disabled = true;
      say(answer, `Sending a test to ${t.name}…`);
      request<TestSendResult>(`${targetUrl(t.name)}/test`, { method: 'POST' })
        .then((r) => say(answer, r.answer, r.ok ? 'ok' : 'error'))
        .catch((err: unknown) => say(answer, errorMessage(err), 'error'))
        .finally(() => (test.disabled = false));
    });
    remove.addEventListener('click', () => {
      void confirmDialog(`Remove the target “${t.name}”? Rules that name it stop sending.`, 'Remove').then((yes) => {
        if (!yes) return;
        request(targetUrl(t.name), { method: 'DELETE' })
          .then(() => load().then(() => addHttp.focus()))
          .catch((err: unknown) => say(answer, errorMessage(err), 'error'));
      });
    });
    return h(
      'div',
      { class: 'target', attrs: { 'data-target': t.name } },
      h('strong', {}, t.name),
      ' ',
      h('span', { class: 'where' }, summary(t)),
      h('div', { class: 'buttons' }, test, edit, remove),
      answer,
    );
  }

  async function load(): Promise<void> {
    try {
      const { targets, fixed_by_env } = await request<NotifyTargetList>(API);
      adders.hidden = fixed_by_env;
      listHost.replaceChildren(
        ...(fixed_by_env ? [h('p', { class: 'muted small' }, 'Set by SVC_NOTIFY_TARGETS; change them there.')] : []),
        ...(targets.length
          ? targets.map((t) => item(t, fixed_by_env))
          : [h('p', { class: 'muted' }, 'No targets yet.')]),
      );
    } catch (err) {
      listHost.replaceChildren(h('p', { class: 'error-box' }, `Cannot read the notify targets: ${errorMessage(err)}`));
    }
  }
  void load();
  return section;
}
