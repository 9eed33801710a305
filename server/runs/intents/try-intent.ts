import { DmsNotFoundError } from '../../dms/dms-errors.js';
import { DmsFileTooLargeError, formatBytes } from '../../dms/file-download.js';
import type { DmsClient, DmsDocument } from '../../dms/types.js';
import { errorMessage } from '../../error-message.js';
import { NotifyError, type Notifier, type NotifyAttachment } from '../notify/notifier.js';
import type { Intent } from './intent-store.js';
import { newNoteId, readValuesOf } from '../journal/journal-records.js';
import type { WriteJournal } from '../journal/write-journal.js';

/** What one try did to an intent: the change to store, and a line for the trace or the log. */
export interface TryResult {
  change: Pick<Intent, 'status' | 'attempts' | 'next_at' | 'error'>;
  message: string;
}

export interface TryDeps {
  dms: Pick<DmsClient, 'getDocument' | 'addNote' | 'downloadDocument'>;
  notifier: Notifier | undefined;
  /** Pauses before the second, third… try; its length bounds the tries. */
  retryDelaysMs: readonly number[];
  now: () => number;
  /** Where a note is recorded before it is added (runs/journal/). */
  journal?: { journal: Pick<WriteJournal, 'begin'>; dmsKey: () => string };
}

const describe = (intent: Intent) => `document ${intent.document}, rule ${intent.rule}`;

/**
 * One try of an intent; never throws. A note is first looked for among the document's notes (it may have
 * been added just before a crash), so it is never added twice. A failure worth retrying (a target or the
 * dms down or busy) is due again after the next pause, until the tries run out.
 */
export async function tryIntent(intent: Intent, deps: TryDeps): Promise<TryResult> {
  const attempts = intent.attempts + 1;
  const maxTries = deps.retryDelaysMs.length + 1;
  const done = (message: string): TryResult => ({
    change: { status: 'done', attempts, next_at: null, error: null },
    message,
  });
  const failed = (error: string): TryResult => ({
    change: { status: 'failed', attempts, next_at: null, error },
    message: error,
  });
  const retry = (what: string): TryResult => {
    const at = deps.now() + deps.retryDelaysMs[attempts - 1];
    const message = `${what}; retrying at ${new Date(at).toISOString()} (try ${attempts + 1} of ${maxTries})`;
    return { change: { status: 'pending', attempts, next_at: at, error: what }, message };
  };
  const gaveUp = (error: string) => (attempts > 1 ? `${error} (gave up after ${attempts} tries)` : error);

  if (intent.kind === 'note') {
    try {
      const doc = await deps.dms.getDocument(intent.document);
      if (doc.notes.some((n) => n.note.trim() === intent.note.trim()))
        return done(`note for ${describe(intent)} was already there; not added again`);
      await addJournaledNote(deps, intent, doc);
      return done(`note for ${describe(intent)} added`);
    } catch (err) {
      if (err instanceof DmsNotFoundError)
        return failed(`note for ${describe(intent)} not added: the document no longer exists`);
      const what = `note pending: the dms failed (${errorMessage(err)})`;
      return attempts < maxTries
        ? retry(what)
        : failed(gaveUp(`note for ${describe(intent)} not added: the dms failed (${errorMessage(err)})`));
    }
  }

  if (!deps.notifier) return failed('notifications are not set up in this service');
  let attachment: NotifyAttachment | undefined;
  if (intent.attach) {
    // Downloaded for this send only, never stored: a retry downloads again.
    const limit = deps.notifier.attachmentLimit(intent.target);
    if (limit === null)
      return failed(`notify to "${intent.target}" not sent: attach needs an e-mail target from the settings`);
    try {
      attachment = await deps.dms.downloadDocument(intent.document, {
        original: intent.attach === 'original',
        maxBytes: limit,
      });
    } catch (err) {
      if (err instanceof DmsFileTooLargeError) {
        const limit = formatBytes(err.limitBytes);
        const size =
          err.announcedBytes === null
            ? `over the ${limit} the target allows`
            : `${formatBytes(err.announcedBytes)}; the target allows ${limit}`;
        return failed(
          `notify to "${intent.target}" not sent: the ${intent.attach} file of document ${intent.document} is too large to attach (${size}: attachment_max_mb in the settings)`,
        );
      }
      if (err instanceof DmsNotFoundError)
        return failed(`notify to "${intent.target}" not sent: document ${intent.document} no longer exists`);
      const what = `notify pending: the ${intent.attach} file to attach could not be downloaded (${errorMessage(err)})`;
      return attempts < maxTries ? retry(what) : failed(gaveUp(what.replace('notify pending: ', '')));
    }
  }
  try {
    await deps.notifier.send(
      intent.target,
      {
        title: intent.title,
        message: intent.message,
        ...(intent.body !== undefined ? { body: intent.body } : {}),
        ...(intent.headers ? { headers: intent.headers } : {}),
      },
      { idempotencyKey: intent.key, ...(attachment ? { attachment } : {}) },
    );
    const attached = attachment ? ` with ${attachment.filename} (${attachment.content.length} bytes)` : '';
    return done(
      `notify to "${intent.target}" for ${describe(intent)} sent${attached} on try ${attempts} (Idempotency-Key ${intent.key})`,
    );
  } catch (err) {
    const retryable = err instanceof NotifyError ? err.retryable : true;
    const reason = err instanceof NotifyError ? err.reason : errorMessage(err);
    if (retryable && attempts < maxTries) return retry(`notify pending: target "${intent.target}" refused (${reason})`);
    return failed(gaveUp(errorMessage(err)));
  }
}

/** Adds the intent's note, recorded in the write journal before it is sent and with the id Paperless gave it after. */
async function addJournaledNote(deps: TryDeps, intent: Intent & { kind: 'note' }, doc: DmsDocument): Promise<void> {
  const read = readValuesOf(doc);
  const [run] = deps.journal
    ? await deps.journal.journal.begin([
        {
          dms: deps.journal.dmsKey(),
          doc: intent.document,
          event: null,
          source: 'intent',
          rules: [intent.rule],
          read,
          writes: [{ kind: 'note', text: intent.note }],
        },
      ])
    : [];
  try {
    const after = await deps.dms.addNote(intent.document, intent.note);
    run?.outcome(0, { ok: true, note: newNoteId(after, new Set(read.notes), intent.note) });
    run?.end('applied');
  } catch (err) {
    run?.outcome(0, { ok: false, error: errorMessage(err) });
    run?.end('not_applied');
    throw err;
  }
}
