import type { DmsClient, DmsDocument, DocumentWriteState } from '../../dms/types.js';
import { unchangedSince } from '../pipeline/replan-fresh.js';
import type { BulkGroup } from './bulk-plan.js';

/**
 * Takes out of the bulk groups the documents a person edited since the page was read (one small request for the
 * page): they are written one by one, where the re-read before the write keeps that person's edit.
 */
export async function editedSinceRead(
  dms: DmsClient,
  groups: BulkGroup[],
  read: Map<number, { document: DmsDocument }>,
): Promise<number[]> {
  const grouped = groups.flatMap((g) => g.documents);
  if (grouped.length === 0) return [];
  let fresh: Map<number, DocumentWriteState>;
  try {
    fresh = new Map((await dms.getWriteStates(grouped)).map((state) => [state.id, state]));
  } catch {
    fresh = new Map(); // cannot tell: every document goes the careful way
  }
  const edited = grouped.filter((id) => {
    const now = fresh.get(id);
    const before = read.get(id);
    return !now || !before || !unchangedSince(before.document, now);
  });
  for (const group of groups) group.documents = group.documents.filter((id) => !edited.includes(id));
  return edited;
}
