/** The names a run may create in the dms (`create_missing`), merged over rules and kept only while still used. */
import type { CreateMissing, RuleDocument } from './model.js';

export function mergeCreateMissing(into: CreateMissing, from: CreateMissing): void {
  if (from.storage_path_templates)
    into.storage_path_templates = { ...into.storage_path_templates, ...from.storage_path_templates };
  for (const key of ['tags', 'correspondents', 'document_types', 'storage_paths'] as const) {
    for (const name of from[key] ?? []) {
      const list = (into[key] ??= []);
      if (!list.some((n) => n.toLocaleLowerCase() === name.toLocaleLowerCase())) list.push(name);
    }
  }
}

/** Only names the final document still uses: a tag a later rule removed need not be created. */
export function stillUsed(wanted: CreateMissing, doc: RuleDocument): CreateMissing {
  const same = (a: string | null) => (b: string) => a !== null && a.toLocaleLowerCase() === b.toLocaleLowerCase();
  const out: CreateMissing = {};
  const tags = wanted.tags?.filter((t) => doc.tags.some((d) => same(d)(t)));
  const correspondents = wanted.correspondents?.filter(same(doc.correspondent));
  const documentTypes = wanted.document_types?.filter(same(doc.document_type));
  const storagePaths = wanted.storage_paths?.filter(same(doc.storage_path));
  if (storagePaths?.length) {
    out.storage_paths = storagePaths;
    const templates = Object.entries(wanted.storage_path_templates ?? {}).filter(([name]) =>
      storagePaths.some(same(name)),
    );
    if (templates.length) out.storage_path_templates = Object.fromEntries(templates);
  }
  if (tags?.length) out.tags = tags;
  if (correspondents?.length) out.correspondents = correspondents;
  if (documentTypes?.length) out.document_types = documentTypes;
  return out;
}
