import path from 'node:path';
import { pathToFileURL } from 'node:url';

// A script or server run in a node of its own from the project's modules: under `npm test` the tests and sources
// are transpiled JavaScript side by side; a test file run alone under tsx has the TypeScript sources.
export const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** The project's root, where such a script runs. */
export const SCRIPT_ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/** The quoted import URL of a project module (`server/log.ts`), as this run has it. */
export const moduleUrl = (file: string): string =>
  JSON.stringify(pathToFileURL(path.join(SCRIPT_ROOT, FROM_SOURCE ? file : file.replace(/\.ts$/, '.js'))).href);

/** Node's arguments to run `script` as an ES module. */
export const scriptArgs = (script: string): string[] => [
  ...(FROM_SOURCE ? ['--import', 'tsx'] : []),
  '--input-type=module',
  '-e',
  script,
];
