import type { RuleDefinition } from '../engine/model.js';
import { describePathTemplate, readPathTemplate } from '../engine/paperless-path-template.js';
import type { ConditionTemplateUse } from './condition-templates.js';

/**
 * A storage path a rule creates with a Paperless path template (`path:` with `{{ }}`) is rendered by Paperless,
 * not by the rule: the save warns with what Paperless fills in, what it keeps as written, and what it refuses.
 */
export function findStoragePathTemplates(rules: ReadonlyArray<RuleDefinition | null>): ConditionTemplateUse[] {
  const found: ConditionTemplateUse[] = [];
  rules.forEach((rule, r) =>
    (rule?.actions ?? []).forEach((action, a) => {
      if (action.set_storage_path === undefined || typeof action.path !== 'string') return;
      const reading = readPathTemplate(action.path);
      if (reading)
        found.push({ path: ['rules', r, 'actions', a, 'path'], message: describePathTemplate(action.path, reading) });
    }),
  );
  return found;
}
