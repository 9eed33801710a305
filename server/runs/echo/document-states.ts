import type { DmsDocument } from '../../dms/types.js';
import { documentState } from './document-state.js';
import type { DocumentTable, OwnWrite } from './document-table.js';

export type { OwnWrite } from './document-table.js';

/**
 * The echo guard by state: per document, the state the service last left it in (written, or handled without
 * writing). An arrival that finds the document in exactly that state is the service's own echo, or a change
 * already handled, however late it comes; any other state is a change someone else made, however soon.
 */
export interface DocumentStates {
  /** True when the document is exactly as the service last wrote or handled it. */
  isKnownState(doc: DmsDocument): boolean;
  /** True when the document is exactly as the service's own last write left it (its echo). */
  isOwnWrite(doc: DmsDocument): boolean;
  /** For a document exactly as the service's own last write left it: what that write was based on (null when unknown). */
  ownWrite(doc: DmsDocument): OwnWrite | null;
  /** True when an `added` arrival of this very document (same `added` time) was handled already: a duplicate. */
  addedHandled(doc: DmsDocument): boolean;
  /**
   * A run of this state was applied in full: when the run wrote nothing (or was dry) this state is known as
   * handled (a write's own state is known once it settles); `added`: the arrival handled the document's addition.
   */
  handled(doc: DmsDocument, wrote?: boolean, added?: boolean): void;
  /** The document is as this write of the service left it (found so from the write journal after a kill). */
  adopt(doc: DmsDocument, write: OwnWrite): void;
}

/** The states as the write side records them too. */
export interface StateRecords extends DocumentStates {
  /** The document is in this state after the service's write (`own`) or a run that wrote nothing. */
  record(doc: DmsDocument, own: boolean, write?: OwnWrite): void;
  /** No state to compare with (deleted, unreadable, or not handled): the next arrival runs the rules. */
  forget(documentId: number): void;
  /** The state the service last knew of the document, if any. */
  stateOf(documentId: number): string | null;
}

export function createDocumentStates(
  table: DocumentTable,
  inFlight: (id: number) => boolean,
  // The journal knows an added arrival the table lost to a kill (the table is saved a moment after the run).
  addedInJournal?: (doc: DmsDocument) => boolean,
): StateRecords {
  const record = (doc: DmsDocument, own: boolean, write?: OwnWrite) => {
    const entry = table.touch(doc.id);
    entry.state = documentState(doc);
    entry.own = own;
    if (write) entry.write = write;
    else delete entry.write;
    // A write's state is saved at once: a crash right after must not turn its late echo into a run.
    if (own) void table.persist();
  };
  const own = (doc: DmsDocument) => {
    const entry = table.get(doc.id);
    return entry?.own === true && entry.state === documentState(doc) ? entry : null;
  };
  return {
    record,
    forget(id) {
      const entry = table.get(id);
      if (!entry) return;
      entry.state = null;
      entry.own = false;
      table.changed(id);
    },
    stateOf: (id) => table.get(id)?.state ?? null,
    isKnownState(doc) {
      const entry = table.get(doc.id);
      return entry?.state != null && entry.state === documentState(doc);
    },
    isOwnWrite: (doc) => own(doc) !== null,
    ownWrite: (doc) => own(doc)?.write ?? null,
    addedHandled: (doc) => table.get(doc.id)?.added === doc.added || addedInJournal?.(doc) === true,
    handled(doc, wrote = false, added = false) {
      if (added) table.touch(doc.id).added = doc.added;
      if (!wrote && !inFlight(doc.id)) record(doc, false);
    },
    adopt: (doc, write) => record(doc, true, write),
  };
}
