// What differs between the supported Paperless-ngx releases, as the client must know it, by `X-Version`
// (docs/dms.md, "Releases"). Each flag names the release where the behaviour changed in the source.

export interface ReleaseQuirks {
  /** The release group, e.g. "2.16–2.18". */
  group: string;
  /** 2.19.0+: tags form a tree; before, a tag has no parent and PATCH stores the requested set. */
  tagHierarchy: boolean;
  /** 2.16–2.18: bulk `modify_custom_fields` fails on a null document-link value after storing the fields before it. */
  bulkNullLinkFails: boolean;
  /** Before 2.20.13: bulk edits store a link to a missing document, then fail mirroring it (the dangling link stays). */
  bulkStoresDanglingLinks: boolean;
  /** 2.x: a PATCH that gives the document away answers 404 after it was stored (the user no longer sees it). */
  giveAwayAnswers404: boolean;
  /** 3.0.0+: webhook bodies may use `{{ doc_id }}`; 2.x has only `{{ doc_url }}`. */
  webhookDocId: boolean;
  /** Before 3.0.5: bulk custom-field values are not validated by Paperless (bad ones are stored or refused as text). */
  bulkValuesUnchecked: boolean;
  /** 2.x: every list page carries `all`, the ids of every matching row. */
  listsCarryAll: boolean;
  /** What the service does differently for this release, one sentence each (health and the connection test). */
  differences: string[];
}

function parse(version: string): [number, number, number] | null {
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(version.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : null;
}

const atLeast = (v: [number, number, number], major: number, minor: number, patch = 0) =>
  v[0] !== major ? v[0] > major : v[1] !== minor ? v[1] > minor : v[2] >= patch;

/** The quirks of the release named by `X-Version`; an unknown or missing version is treated as the newest (3.0.5). */
export function releaseQuirks(version: string | undefined): ReleaseQuirks {
  const v = (version && parse(version)) || [3, 0, 5];
  const q = {
    tagHierarchy: atLeast(v, 2, 19),
    bulkNullLinkFails: !atLeast(v, 2, 19),
    bulkStoresDanglingLinks: !atLeast(v, 2, 20, 13),
    giveAwayAnswers404: !atLeast(v, 3, 0),
    webhookDocId: atLeast(v, 3, 0),
    bulkValuesUnchecked: !atLeast(v, 3, 0, 5),
    listsCarryAll: !atLeast(v, 3, 0),
  };
  const group = !atLeast(v, 2, 19)
    ? '2.16–2.18'
    : !atLeast(v, 2, 20, 13)
      ? '2.19–2.20.12'
      : !atLeast(v, 3, 0)
        ? '2.20.13+'
        : !atLeast(v, 3, 0, 5)
          ? '3.0.0–3.0.4'
          : '3.0.5+';
  const differences: string[] = [];
  if (!q.webhookDocId)
    differences.push('2.x: the workflow webhook body must use doc_url ({{ doc_id }} exists only from 3.0).');
  if (!q.tagHierarchy) differences.push('before 2.19: tags have no parents, so adding a tag adds no parent tag.');
  if (q.bulkNullLinkFails)
    differences.push(
      '2.16–2.18: empty document-link fields are written with one PATCH per document, not in a bulk edit.',
    );
  if (q.bulkStoresDanglingLinks)
    differences.push('up to 2.20.12: document-link targets are checked to exist before writing.');
  if (q.giveAwayAnswers404)
    differences.push('2.x: giving a document away is written last; Paperless then answers 404, which counts as done.');
  if (q.bulkValuesUnchecked)
    differences.push(
      'before 3.0.5: Paperless does not check bulk custom-field values; the service checks them before sending.',
    );
  if (q.listsCarryAll)
    differences.push(
      '2.x: list pages carry every matching id; the service reads the id list once instead of page by page.',
    );
  return { group, ...q, differences };
}
