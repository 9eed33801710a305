import type { DmsDocument } from '../../dms/types.js';
import type { Attribution } from '../echo/attribution.js';
import type { DocumentStates } from '../echo/document-states.js';

export type CatchUpTrigger = 'added' | 'updated';

/**
 * With the audit log off, how long after `added` Paperless's own consumption may still save the document (file
 * names, matching, "Document Added" workflows: seconds within one transaction): a later `modified` is an edit.
 */
export const CONSUMPTION_SAVES_MS = 60_000;

export interface TriggerFacts {
  states: Pick<DocumentStates, 'addedHandled' | 'ownWrite'>;
  attribution: Pick<Attribution, 'editedAfterAdded'>;
}

/**
 * What a document catch-up found stands for, from facts rather than from `added` alone: a document added since
 * the cursor whose `added` arrival the service has not handled is `added`; one edited after it was added (the
 * audit log names someone other than the service, or without it `modified` well after `added`) is `updated` too;
 * a document whose `added` arrival was handled, or added before the cursor, is `updated`.
 */
export async function arrivalTriggers(doc: DmsDocument, since: number, facts: TriggerFacts): Promise<CatchUpTrigger[]> {
  if (!(Date.parse(doc.added) >= since) || facts.states.addedHandled(doc)) return ['updated'];
  return (await editedAfterAdded(doc, facts)) ? ['added', 'updated'] : ['added'];
}

async function editedAfterAdded(doc: DmsDocument, facts: TriggerFacts): Promise<boolean> {
  const logged = (await facts.attribution.editedAfterAdded?.(doc).catch(() => null)) ?? null;
  if (logged !== null) return logged;
  // The service's own write moved `modified`: what counts is the save its write was based on.
  const lastForeign = facts.states.ownWrite(doc)?.readAt ?? doc.modified;
  return Date.parse(lastForeign) - Date.parse(doc.added) > CONSUMPTION_SAVES_MS;
}
