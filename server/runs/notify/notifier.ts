import nodemailer from 'nodemailer';
import type { NotifyTarget } from '../../settings/notify-targets.js';

export interface NotifyMessage {
  title: string;
  message: string;
}

export interface Notifier {
  /** Names rules may use in `notify: {to: …}`. */
  names(): string[];
  /** Sends one message; throws an error naming the target when it is unknown or refuses. */
  send(target: string, msg: NotifyMessage): Promise<void>;
}

const TIMEOUT_MS = 10_000;

async function postHttp(target: Extract<NotifyTarget, { kind: 'http' }>, msg: NotifyMessage): Promise<void> {
  const text = target.format === 'text';
  const headers: Record<string, string> = { 'content-type': text ? 'text/plain; charset=utf-8' : 'application/json', ...target.headers };
  // ntfy reads the title from this header; header values must be Latin-1, so other characters are dropped.
  if (text && msg.title) headers.Title = msg.title.replace(/[^\x20-\x7e\xa0-\xff]/g, '');
  const res = await fetch(target.url, {
    method: 'POST',
    headers,
    body: text ? msg.message : JSON.stringify({ title: msg.title, message: msg.message }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
    redirect: 'error',
  });
  await res.body?.cancel();
  if (!res.ok) throw new Error(`answered HTTP ${res.status}`);
}

async function sendMail(target: Extract<NotifyTarget, { kind: 'email' }>, msg: NotifyMessage): Promise<void> {
  const transport = nodemailer.createTransport(target.smtp, { connectionTimeout: TIMEOUT_MS, greetingTimeout: TIMEOUT_MS, socketTimeout: TIMEOUT_MS });
  try {
    await transport.sendMail({ from: target.from, to: target.to, subject: msg.title || msg.message.split('\n')[0].slice(0, 120), text: msg.message });
  } finally {
    transport.close();
  }
}

/** Sends `notify` messages to the targets of the settings, read at each send so a settings change applies at once. */
export function createNotifier(targets: () => Record<string, NotifyTarget> | null): Notifier {
  return {
    names: () => Object.keys(targets() ?? {}),
    async send(name, msg) {
      const target = (targets() ?? {})[name];
      if (!target) throw new Error(`there is no notify target "${name}" in the settings (notify_targets)`);
      try {
        if (target.kind === 'http') await postHttp(target, msg);
        else await sendMail(target, msg);
      } catch (err) {
        throw new Error(`notify target "${name}" failed: ${(err as Error).message}`, { cause: err });
      }
    },
  };
}
