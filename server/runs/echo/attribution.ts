import { DmsAuditLogOffError, DmsHistoryForbiddenError } from '../../dms/document-history.js';
import type { DmsClient, DmsDocument, DmsHistoryEntry, DmsServiceUser } from '../../dms/types.js';
import type { Logger } from '../../log.js';
import { attributionFor, stateOnlyReason, type AttributionStatus } from './attribution-mode.js';
import type { OwnWrite } from './document-states.js';
import { errorMessage } from '../../error-message.js';
import { DmsError } from '../../dms/dms-errors.js';
import { ownEntryTest, type FieldNames } from '../journal/entry-match.js';
import type { WriteJournal } from '../journal/write-journal.js';

export type { AttributionStatus } from './attribution-mode.js';

export interface Attribution {
  /**
   * For a document exactly as the service's own last write left it: true when Paperless's audit log shows nothing
   * since the service read it but the service's own changes (or the audit log cannot be read: then the state
   * comparison alone decides, as before). False: a person (or a Paperless workflow) changed it too.
   */
  onlyOwnChanges(doc: DmsDocument, write: OwnWrite): Promise<boolean>;
  /**
   * Whether someone other than the service changed the document after it was added, by the audit log: true, false,
   * or null when the audit log cannot say (off, not readable): then `added` and `modified` decide (catch-up).
   */
  editedAfterAdded?(doc: DmsDocument): Promise<boolean | null>;
  status(): AttributionStatus;
}

// How audit-log entries name the fields of a document (auditlog's field names, and a note's own key).
const ENTRY_FIELDS: Record<string, string> = { 'Note Added': 'notes', 'Note Deleted': 'notes' };

/** The fields one audit-log entry changed, as the service's plans name them. */
export function entryFields(entry: DmsHistoryEntry): string[] {
  return Object.keys(entry.changes).map((key) => ENTRY_FIELDS[key] ?? key);
}

/**
 * Attribution by Paperless's own audit log (docs/jobs-and-webhook.md#how-documents-arrive-and-the-guarantees): an entry made since the service's last read by the service's
 * own Paperless user, changing only what the service wrote, is its echo; anything else (another user, a note, no
 * actor = a Paperless workflow) is a change the rules must see. With the audit log off or not readable by the
 * token, the state comparison alone decides, and `status()` says so.
 */
export function createAttribution(
  dms: Pick<DmsClient, 'serviceUser' | 'documentHistory' | 'vocabulary'>,
  logger: Logger,
  journal: { runs: Pick<WriteJournal, 'runsOf'>; dmsKey: () => string },
): Attribution {
  let user: DmsServiceUser | null = null;
  let fallback: string | null = null;
  let checked: Promise<void> | null = null;

  const useState = (reason: string) => {
    if (fallback === null) logger.warn(`attribution by document state only: ${reason}`);
    fallback = reason;
  };

  const learnUser = () =>
    (checked ??= dms
      .serviceUser()
      .then((found) => {
        user = found;
        fallback = null;
        const reason = stateOnlyReason(found);
        if (reason !== null) useState(reason);
      })
      .catch((err: unknown) => {
        // Tried again at the next echo: the dms may be down for now, or the permission granted meanwhile.
        checked = null;
        if (err instanceof DmsError && err.dmsStatus === 403)
          useState(`the dms does not say which user the token belongs to: ${errorMessage(err)}`);
        else logger.warn(`could not learn which dms user the service is: ${errorMessage(err)}`);
      }));

  /** The document's audit log and the service's user, or why there is none to judge by: `state` (its state decides). */
  const historyOf = async (
    doc: DmsDocument,
  ): Promise<{ entries: DmsHistoryEntry[]; self: DmsServiceUser } | 'state' | 'unreadable'> => {
    await learnUser();
    const self = user;
    if (fallback !== null || self === null) return 'state';
    try {
      return { entries: (await dms.documentHistory(doc.id)).entries, self };
    } catch (err) {
      if (err instanceof DmsAuditLogOffError) {
        useState(err.message);
        return 'state';
      }
      if (err instanceof DmsHistoryForbiddenError) {
        // This document's history only (Paperless refuses it for a document another user owns): its state decides.
        logger.info(`document ${doc.id}: ${err.message}; its state alone decides`);
        return 'state';
      }
      logger.warn(`could not read the audit log of document ${doc.id}: ${errorMessage(err)}`);
      return 'unreadable';
    }
  };

  void learnUser();
  return {
    async onlyOwnChanges(doc, write) {
      const history = await historyOf(doc);
      if (history === 'state') return true;
      // Unreadable: run the rules (a rule that is already satisfied writes nothing).
      if (history === 'unreadable') return false;
      const { entries, self } = history;
      // Paperless stamps a save's entry before the save sets `modified` (pre_save): the save the rules read is
      // logged before `readAt`, every later change after it. Each later entry must be a value the service's runs
      // since that read sent (an older run's value does not explain a newer entry).
      const since = Date.parse(write.readAt);
      const later = entries.filter((e) => Date.parse(e.timestamp) > since && !isCreation(e));
      if (later.length === 0) return true;
      const runs = journal.runs
        .runsOf(journal.dmsKey(), doc.id)
        .filter((run) => Date.parse(run.entry.read.modified) >= since);
      const isOwn = ownEntryTest(runs, self.id, await fieldNames(dms, later));
      const foreign = later.find((e) => !isOwn(e));
      if (foreign) {
        const who = foreign.actor ? `the dms user "${foreign.actor.username}"` : 'a Paperless workflow';
        logger.info(
          `document ${doc.id}: ${who} changed ${entryFields(foreign).join(', ') || 'it'} after the service read it; running the rules`,
        );
      }
      return foreign === undefined;
    },
    async editedAfterAdded(doc) {
      const history = await historyOf(doc);
      if (history === 'state' || history === 'unreadable') return null;
      const { entries, self } = history;
      // Paperless's own saves during and right after consumption (matching, "Document Added" workflows, file
      // names) are logged without an actor, like a Paperless workflow's: a change by someone names them, or is a note.
      const later = entries.filter((e) => !isCreation(e) && (e.actor !== null || isNote(e)));
      if (later.length === 0) return false;
      const runs = journal.runs.runsOf(journal.dmsKey(), doc.id);
      const isOwn = ownEntryTest(runs, self.id, await fieldNames(dms, later));
      return later.some((e) => !isOwn(e));
    },
    status: () => attributionFor(user, fallback),
  };
}

const isNote = (entry: DmsHistoryEntry) => 'Note Added' in entry.changes || 'Note Deleted' in entry.changes;

/** Custom-field names (from the vocabulary, cached by the client), read only when an entry names a custom field. */
async function fieldNames(
  dms: Pick<DmsClient, 'vocabulary'>,
  entries: readonly DmsHistoryEntry[],
): Promise<FieldNames> {
  if (!entries.some((e) => 'custom_fields' in e.changes)) return () => undefined;
  const fields = (await dms.vocabulary().catch(() => null))?.custom_fields ?? [];
  return (id) => {
    const found = fields.find((f) => f.id === id);
    return found ? { name: found.name, select: found.data_type === 'select' } : undefined;
  };
}

/**
 * The document's own create entry (consumption): logged at `post_save`, so stamped after the `modified` of the
 * very document the service read. A custom-field instance's create entry is a change like any other.
 */
function isCreation(entry: DmsHistoryEntry): boolean {
  return entry.action === 'create' && !('custom_fields' in entry.changes);
}
