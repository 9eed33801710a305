import { createHash } from 'node:crypto';
import type { DmsDocument } from '../../dms/types.js';
import type { RunTrigger } from '../../engine/engine.js';
import { readValuesOf, type ReadValues } from '../journal/journal-records.js';

const digest = (text: string, length: number) => createHash('sha256').update(text).digest('base64url').slice(0, length);

/**
 * What "the change that triggered the run" is, for idempotency keys: whichever path runs a change first (a job,
 * a webhook delivery, catch-up), a later run of the same change has the same basis. A document exactly as the
 * service's own write left it is still the change that write came from, so its basis is the state that write read
 * (`origin`, from the write journal): the job's run and the `added` arrival after it share their keys. Otherwise a
 * new document is added once, so an `added` arrival is named by its `added` time whatever the state (a second
 * arrival of it, a redelivery, is the same change); any other run by the state the rules read — the fields, the
 * text (by digest) and the notes by id — so a person's change (deleting the note the rule added included) is a new
 * one. `modified` is left out: every save moves it.
 */
export function changeBasis(doc: DmsDocument, trigger: RunTrigger, origin: ReadValues | null = null): string {
  if (origin) return `state:${stateDigest(origin)}`;
  if (trigger === 'added') return `added:${doc.added}`;
  return `state:${stateDigest(readValuesOf(doc))}`;
}

function stateDigest(read: ReadValues): string {
  const state = [
    read.title,
    read.correspondent,
    read.document_type,
    read.storage_path,
    (read.created ?? '').slice(0, 10),
    read.archive_serial_number,
    read.owner,
    [...read.tags].sort((a, b) => a - b),
    [...read.custom_fields].sort((a, b) => a[0] - b[0]),
    [...read.notes].sort((a, b) => a - b),
    read.content,
  ];
  return digest(JSON.stringify(state), 22);
}

/**
 * The idempotency key of one side effect: document, rule, action path and change. Printable ASCII, so it
 * can travel as an HTTP header (`Idempotency-Key`) and in a Message-ID.
 */
export function intentKey(document: number, basis: string, rule: string, path: string): string {
  return `dms-rules-${document}-${digest(JSON.stringify([basis, rule, path]), 27)}`;
}

/** What names one run for `when: always`: its event (a retried event is the same run), else the run alone. */
export type RunIdentity = { eventId: number } | { nonce: string };

/**
 * The key of one notification by its `when`: `on_change` names the change (as a note's), `always` the run,
 * `once` only document, rule and target, so it stays the same whatever changes: the durable "sent once" record.
 */
export function notificationKey(
  document: number,
  rule: string,
  notification: { path: string; target: string; when?: string },
  change: () => string,
  run: RunIdentity,
): string {
  if (notification.when === 'once') return intentKey(document, 'once', rule, `target:${notification.target}`);
  if (notification.when === 'always') {
    const basis = 'eventId' in run ? `event:${run.eventId}` : `run:${run.nonce}`;
    return intentKey(document, basis, rule, notification.path);
  }
  return intentKey(document, change(), rule, notification.path);
}
