/** The schema of a rule's `tests:` entries and the documents they give (definitions of the rule file schema). */

/** A date, or a date and time with an optional zone, as a test's `now` and its documents' dates are written. */
export const TEST_DATE_PATTERN =
  '^\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?)?$';

const nameArray = { type: 'array', items: { type: 'string' } };
const testPermissionLists = {
  type: 'object',
  additionalProperties: false,
  properties: { users: nameArray, groups: nameArray },
};

/** `ruleTest` and `testDocument`; `triggers` are the rule's (a test may also run as a job). */
export function ruleTestDefinitions(triggers: readonly string[]) {
  const testDocument = {
    type: 'object',
    additionalProperties: false,
    properties: {
      id: { type: 'integer', minimum: 1 },
      title: { type: 'string' },
      content: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
      correspondent: { type: ['string', 'null'] },
      document_type: { type: ['string', 'null'] },
      storage_path: { type: ['string', 'null'] },
      custom_fields: { type: 'object' },
      created: { type: ['string', 'null'] },
      added: { type: ['string', 'null'] },
      modified: { type: ['string', 'null'] },
      archive_serial_number: { type: ['integer', 'null'] },
      original_file_name: { type: ['string', 'null'] },
      mime_type: { type: ['string', 'null'] },
      page_count: { type: ['integer', 'null'] },
      notes: { type: 'array', items: { type: 'string' } },
      owner: { type: ['string', 'null'], description: "The owner's user name" },
      permissions: {
        type: 'object',
        additionalProperties: false,
        properties: { view: testPermissionLists, change: testPermissionLists },
      },
    },
  };

  const ruleTest = {
    type: 'object',
    additionalProperties: false,
    required: ['document', 'expect'],
    properties: {
      name: { type: 'string' },
      trigger: { enum: [...triggers, 'job'] },
      now: {
        type: 'string',
        pattern: TEST_DATE_PATTERN,
        description:
          'The time this test runs at (now, today, relative dates), e.g. 2025-03-01 or 2025-03-01T09:30:00Z; default: the real time',
      },
      document: { $ref: '#/definitions/testDocument' },
      vars: { type: 'object' },
      documents: {
        type: 'array',
        items: { $ref: '#/definitions/testDocument' },
        description: "The other documents the rule's queries see in this test (each with its own id)",
      },
      expect: {
        type: 'object',
        additionalProperties: false,
        required: ['matched'],
        properties: {
          matched: { type: 'boolean' },
          changes: { type: 'object', description: 'Field → expected new value; only the fields named are compared' },
          extracted: { type: 'object' },
          unchanged: {
            type: 'array',
            items: { type: 'string' },
            minItems: 1,
            description: 'Fields the rule must leave as they are, e.g. [custom_fields.Betrag, title]',
          },
          notify: {
            type: 'array',
            items: { type: 'string' },
            description:
              'The notify targets a real run of this test would send to ([] for none); when: once as if nothing was sent yet',
          },
        },
      },
    },
  };
  return { ruleTest, testDocument };
}
