import type { DmsClient, DmsDocument } from '../../dms/types.js';
import { errorMessage } from '../../error-message.js';
import type { Logger } from '../../log.js';
import { documentState } from './document-state.js';
import type { StateRecords } from './document-states.js';
import { beforeMirror, mirroredLinks } from './link-mirror.js';
import type { HeldWrites } from './write-barrier.js';

export interface MirrorDeps {
  dms: Pick<DmsClient, 'getDocuments'>;
  states: Pick<StateRecords, 'record' | 'stateOf'>;
  barrier: Pick<HeldWrites, 'hold' | 'letGo'>;
  logger: Logger;
}

/**
 * After the service wrote `doc`: the targets of the links it wrote, where Paperless mirrored the link
 * (link-mirror.ts). A target whose only change since the state the service knew is that mirror is in a state of
 * the service's own; one that changed otherwise too, or that the service never handled, is left to its next
 * arrival. The targets are held at the write barrier meanwhile, so a catch-up never runs the mirror as a change.
 */
export function settleMirrors(deps: MirrorDeps, doc: DmsDocument, before: DmsDocument | undefined): void {
  const links = mirroredLinks(doc, before).filter((link) => deps.states.stateOf(link.target) !== null);
  const targets = [...new Set(links.map((link) => link.target))];
  if (targets.length === 0) return;
  for (const id of targets) deps.barrier.hold(id);
  void (async () => {
    try {
      for (const target of await deps.dms.getDocuments(targets)) {
        const known = deps.states.stateOf(target.id);
        if (known === null || documentState(target) === known) continue;
        const candidates = links
          .filter((link) => link.target === target.id)
          .reduce<DmsDocument[]>(
            (forms, link) => forms.flatMap((form) => [form, ...beforeMirror(form, link)]),
            [target],
          );
        if (!candidates.some((form) => documentState(form) === known)) continue;
        deps.states.record(target, true);
        deps.logger.info(
          `document ${target.id}: the link from document ${doc.id} mirrored onto it is the service's own change`,
        );
      }
    } catch (err) {
      deps.logger.warn(`could not read the documents linked from document ${doc.id}: ${errorMessage(err)}`);
    } finally {
      for (const id of targets) deps.barrier.letGo(id);
    }
  })();
}
