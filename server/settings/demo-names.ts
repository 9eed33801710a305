// The demo dms has no Paperless screens to add a tag in: a rule that names a tag it lacks would be stuck at its
// validation error. The Web UI offers to create the name there; against a real Paperless the person adds it there.
import { BadRequestError, ConflictError } from '../app-errors.js';
import type { DmsInfo } from '../dms/dms-connection.js';
import type { DmsClient, DmsNamedObject } from '../dms/types.js';

/** The kinds a condition may name that the demo dms can create from the name alone (a storage path needs a path). */
const KINDS = ['tags', 'correspondents', 'document_types'] as const;
type DemoNameKind = (typeof KINDS)[number];

export interface DemoNames {
  /** Creates `{kind, name}` in the demo dms (an existing name is answered as it is); refused for any other dms. */
  create(body: unknown): Promise<{ kind: DemoNameKind; created: DmsNamedObject }>;
}

export function createDemoNames(deps: { dms: DmsClient; dmsInfo: DmsInfo }): DemoNames {
  return { create: (body) => createDemoName(deps, body) };
}

async function createDemoName(
  deps: { dms: DmsClient; dmsInfo: DmsInfo },
  body: unknown,
): Promise<{ kind: DemoNameKind; created: DmsNamedObject }> {
  if (!deps.dmsInfo.demo)
    throw new ConflictError('Only the demo dms takes new names from here; create it in Paperless instead.');
  const { kind, name } = (body ?? {}) as { kind?: unknown; name?: unknown };
  if (!KINDS.includes(kind as DemoNameKind)) throw new BadRequestError(`"kind" must be one of ${KINDS.join(', ')}.`);
  if (typeof name !== 'string' || name.trim() === '' || name.length > 128)
    throw new BadRequestError('"name" must be a name of 1 to 128 characters.');
  return { kind: kind as DemoNameKind, created: await deps.dms.createObject(kind as DemoNameKind, name.trim()) };
}
