import fs from 'node:fs';
import { writeFileAtomic } from '../../atomic-write.js';
import { createCoalescedWriter } from '../../coalesced-writer.js';
import { moveAside } from '../../move-aside.js';
import type { Logger } from '../../log.js';
import { errorMessage } from '../../error-message.js';

/** What a side effect does: add a note to a document, or send a notification to a target from the settings. */
export type IntentEffect = { kind: 'note'; note: string } | NotifyEffect;

/** A notification as sent: the rendered text, and for HTTP a body and headers, for e-mail which file to attach. */
export interface NotifyEffect {
  kind: 'notify';
  target: string;
  title: string;
  message: string;
  body?: string;
  headers?: Record<string, string>;
  attach?: 'original' | 'archive';
}

/** `pending`: recorded, not known to be done; `done`: sent (or found already there); `failed`: given up. */
export type IntentStatus = 'pending' | 'done' | 'failed';

/** One side effect of one rule on one document for one change, recorded before it is sent (docs/jobs-and-webhook.md#side-effects-notes-and-notifications). */
export type Intent = IntentEffect & {
  /** The idempotency key: document, rule, action path and the change that triggered the run. */
  key: string;
  document: number;
  rule: string;
  path: string;
  status: IntentStatus;
  /** `when: once`: the record that the document had its one message; never forgotten to make room. */
  once?: boolean;
  /** Tries made so far. */
  attempts: number;
  /** When the next try is due (ms since epoch); null: as soon as possible. */
  next_at: number | null;
  error: string | null;
  created_at: number;
  updated_at: number;
};

export interface IntentStoreOptions {
  /** Where the intents survive restarts (JSON, rewritten atomically, mode 0600). */
  file: string;
  logger: Logger;
  /** Finished (done or failed) intents kept to recognise a repeat; the oldest are forgotten first (`once` ones never). */
  capacity?: number;
  now?: () => number;
}

export interface IntentStore {
  get(key: string): Intent | undefined;
  /** Adds or replaces intents; resolves once they are on disk (one write for all of them). */
  put(...added: Intent[]): Promise<void>;
  /** Changes an intent; resolves once the change is on disk. Unknown keys are ignored. */
  update(key: string, change: Partial<Pick<Intent, 'status' | 'attempts' | 'next_at' | 'error'>>): Promise<void>;
  /** Forgets an intent that turned out not to be wanted (its rule wrote nothing after all). */
  remove(key: string): Promise<void>;
  /** The intents not yet done nor given up, oldest first. */
  pending(): Intent[];
  close(): Promise<void>;
}

// About 200 bytes each once finished: the file stays near 1 MB, rewritten whole on each change.
const DEFAULT_CAPACITY = 5_000;

/** Opens the intent store of the data dir; an unreadable file is moved aside (never overwritten) and logged. */
export function openIntentStore(options: IntentStoreOptions): IntentStore {
  const now = options.now ?? Date.now;
  const capacity = options.capacity ?? DEFAULT_CAPACITY;
  const intents = load(options.file, options.logger);
  // The writer logs a failed write and goes on; `failure` lets a caller that must know (before sending) know.
  let failure: unknown = null;
  const writer = createCoalescedWriter(
    async () => {
      try {
        await writeFileAtomic(options.file, JSON.stringify({ version: 1, intents: [...intents.values()] }), {
          mode: 0o600,
        });
        failure = null;
      } catch (err) {
        failure = err;
        throw err;
      }
    },
    (message) => options.logger.error(`intent store ${options.file} could not be written: ${message}`),
    500,
  );
  const save = async () => {
    await writer.now();
    if (failure) throw new Error(`the intent store ${options.file} could not be written: ${errorMessage(failure)}`);
  };

  /** Forgets the oldest finished intents beyond the capacity (the map is in order of change); pending and once never. */
  const trim = () => {
    let excess = -capacity;
    for (const intent of intents.values()) if (intent.status !== 'pending' && !intent.once) excess++;
    for (const [key, intent] of intents) {
      if (excess <= 0) break;
      if (intent.status === 'pending' || intent.once) continue;
      intents.delete(key);
      excess--;
    }
  };
  /** Moves an intent to the end (most recent); a finished one keeps only what recognises a repeat, not its text. */
  const keep = (intent: Intent) => {
    intents.delete(intent.key);
    intent.updated_at = now();
    if (intent.status !== 'pending') {
      if (intent.kind === 'note') intent.note = '';
      else {
        Object.assign(intent, { title: '', message: '' });
        delete intent.body;
        delete intent.headers;
      }
    }
    intents.set(intent.key, intent);
  };

  return {
    get: (key) => intents.get(key),
    async put(...added) {
      for (const intent of added) keep({ ...intent });
      trim();
      await save();
    },
    async update(key, change) {
      const intent = intents.get(key);
      if (!intent) return;
      keep(Object.assign(intent, change));
      trim();
      await save();
    },
    async remove(key) {
      if (intents.delete(key)) await save();
    },
    pending: () =>
      [...intents.values()].filter((i) => i.status === 'pending').sort((a, b) => a.created_at - b.created_at),
    close: () => writer.close(),
  };
}

function isIntent(value: unknown): value is Intent {
  const i = value as Intent;
  return (
    typeof i === 'object' &&
    i !== null &&
    typeof i.key === 'string' &&
    typeof i.document === 'number' &&
    (i.kind === 'note' || i.kind === 'notify') &&
    ['pending', 'done', 'failed'].includes(i.status)
  );
}

function load(file: string, logger: Logger): Map<string, Intent> {
  const intents = new Map<string, Intent>();
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return intents;
  }
  try {
    const parsed = JSON.parse(text) as { version?: number; intents?: unknown[] };
    if (parsed.version !== 1 || !Array.isArray(parsed.intents)) throw new Error('unexpected structure');
    for (const intent of parsed.intents) {
      if (!isIntent(intent)) throw new Error(`an entry is not an intent: ${JSON.stringify(intent).slice(0, 200)}`);
      intents.set(intent.key, intent);
    }
  } catch (err) {
    moveAside(file, 'intent store', errorMessage(err), logger);
    intents.clear();
  }
  return intents;
}
