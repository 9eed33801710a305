import type { DmsDocument } from '../../dms/types.js';

/** What the service's last write of a document was based on: when the document it read was last saved, and what it wrote. */
export interface OwnWrite {
  /** `modified` of the document as the rules read it (the dms's clock). */
  readAt: string;
  /** The fields the write changed. */
  fields: string[];
}

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
