import { Worker } from 'node:worker_threads';

// Under tsx (tests, `npm run dev`) this module is TypeScript and so are the workers, which then register
// tsx's loader themselves before importing their module (a worker does not inherit the loader); built
// (`npm start`, Electron), everything is plain JS and the worker file is loaded directly.
const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** Starts `server/eval/<name>.ts|js` as a worker thread. */
export function startWorker(name: string, workerData: unknown): Worker {
  const url = new URL(`./${name}${FROM_SOURCE ? '.ts' : '.js'}`, import.meta.url);
  if (!FROM_SOURCE) return new Worker(url, { workerData });
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}
