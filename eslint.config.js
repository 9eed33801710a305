// ESLint flat config: typescript-eslint's strict, type-checked rules over every TypeScript file, with
// type information from the tsconfig nearest each file (tsconfig.json; renderer/tsconfig.json for the Web UI).
// Formatting is Prettier's job, layer boundaries are dependency-cruiser's (.dependency-cruiser.cjs).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'out/',
      'data/',
      'test-results/',
      'docs/',
      'coverage/',
      '.test-build/',
      'server/rules/rule-validators.generated.ts',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.strictTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's test()/describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      // Messages a person reads put counts and flags in templates (`${n} documents`); objects and nullish still may not.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // The house style's one-line arrows (`(req, res) => res.json(x)`, `() => void close()`) say what they mean.
      // Early returns such as `return next(err)` in Express handlers and `return say(...)` in the UI end a void
      // function on purpose; splitting each into two statements would add lines, not clarity.
      '@typescript-eslint/no-confusing-void-expression': 'off',
      // tsconfig keeps noUncheckedIndexedAccess off, so the rule reads `record[key]` as always defined and flags
      // the checks that guard it; it also flags checks on parsed input whose static type is a promise, not a fact.
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // Each `!` sits right after the check that makes it true (Map.get after set, ids validated a line above).
      '@typescript-eslint/no-non-null-assertion': 'off',
      // String(x) on values from YAML, templates and the dms is a deliberate conversion of data, not an accident.
      '@typescript-eslint/no-base-to-string': 'off',
      // Patches and query filters are plain records keyed by field name; deleting a key is what they are for.
      '@typescript-eslint/no-dynamic-delete': 'off',
      // `_name` marks a parameter kept for its position; rest siblings drop the keys they leave out.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Test fakes implement the service's async interfaces with values at hand: `async` there states the
    // contract (a promise, rejections instead of throws), not a missing await.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: globals.node },
  },
);
