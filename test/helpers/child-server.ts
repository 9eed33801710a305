import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { after } from 'node:test';
import { FROM_SOURCE, SCRIPT_ROOT } from './module-script.js';
import { ADMIN, API_TOKEN } from './test-server.js';

/** The service as a separate process, so a test can kill -9 it: transpiled `server/main.js`, or `server/main.ts` under tsx. */
export interface ChildServer {
  url: string;
  output(): string;
  /** Sends the signal and resolves when the process has exited, with its exit code (null when a signal ended it). */
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

// `npm test` runs the transpiled tree, where the service is also bundled into one file that starts faster
// (build/bundle-test-server.mjs); a test file run on its own under tsx has the sources.
const ENTRY = FROM_SOURCE ? ['--import', 'tsx', 'server/main.ts'] : ['--enable-source-maps', 'server/main.bundle.js'];

// Every server still running when the test file ends is killed: a test that failed between starting one and its
// own clean-up would otherwise leave it running, and its pipes would keep the file's process (and the run) waiting.
const live = new Set<ChildProcess>();
after(() => {
  for (const child of live) child.kill('SIGKILL');
});

export async function startChildServer(env: Record<string, string>): Promise<ChildServer> {
  const child: ChildProcess = spawn(process.execPath, [...ENTRY.slice(0, -1), path.join(SCRIPT_ROOT, ENTRY.at(-1)!)], {
    cwd: SCRIPT_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      // `npm test` gives each run a temp folder of its own, removed at its end.
      ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
      // No coverage from the bundle: V8 reports its functions that never ran as run (node passes this variable
      // on to every child unless the child's environment names it).
      NODE_V8_COVERAGE: '',
      SVC_HOST: '127.0.0.1',
      SVC_PORT: '0',
      SVC_ADMIN_USER: ADMIN.username,
      SVC_ADMIN_PASSWORD: ADMIN.password,
      SVC_API_TOKEN: API_TOKEN,
      SVC_EVAL_WORKERS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${out}`));
    }, 120_000);
    const onData = () => {
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });
  return {
    url,
    output: () => out,
    kill: (signal = 'SIGKILL') =>
      new Promise<number | null>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}
