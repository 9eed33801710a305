import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { SlowDmsProfile } from '../tools/paperless-sim/slow-dms.js';
import { startSimulator, type Simulator } from '../tools/paperless-sim/simulator.js';
import { rulesDirWith, tempDir } from './fixtures.js';

/** The built service (`dist/server/main.js`) in its own process, so its memory is measured alone. */
export interface ServiceProcess {
  url: string;
  pid: number;
  /** Peak resident memory of the service process so far (VmHWM), in MiB. */
  peakRssMiB(): number;
  rssMiB(): number;
  /** Starts the peak (VmHWM) over from the current RSS, so `peakRssMiB` covers what follows (one phase of a bench). */
  resetPeak(): void;
  /** CPU seconds (user + system) the service process has used so far. */
  cpuSeconds(): number;
  /** CPU seconds of its main thread alone (the serial part of a run; evaluation workers are other threads). */
  mainThreadCpuSeconds(): number;
  /** The last 4 KB the service wrote to stderr (why it died, when it did). */
  stderrTail(): string;
  /** Milliseconds the service's own request log gave each answered `METHOD path status` so far (inside the service). */
  requestLogMs(line: string): number[];
  stop(): Promise<void>;
}

export const BENCH_TOKEN = 'bench-token-0123456789abcdef0123456789';

function procStatusMiB(pid: number, key: 'VmHWM' | 'VmRSS'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

function procCpuSeconds(pid: number, file = `/proc/${pid}/stat`): number {
  // Fields 14 and 15 of /proc/<pid>/stat (after the parenthesised name): utime and stime in clock ticks.
  const stat = fs.readFileSync(file, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function startService(
  root: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, path.join(root, 'dist/server/main.js')], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_OPTIONS: env.NODE_OPTIONS ?? '',
      SVC_HOST: '127.0.0.1',
      SVC_PORT: '0',
      SVC_API_TOKEN: BENCH_TOKEN,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4096)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`service did not start in 30 s:\n${out}\n${stderr}`)), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`service exited with ${code}:\n${out}\n${stderr}`)));
  });
  // The request log (`POST /api/webhook/dms 202 3.1ms`): the time inside the service, without the client's.
  const logged = new Map<string, number[]>();
  let partial = '';
  child.stdout?.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const match = /([A-Z]+ \S+ \d{3}) (\d+(?:\.\d+)?)ms$/.exec(line);
      if (!match) continue;
      const times = logged.get(match[1]) ?? [];
      if (times.length < 100_000) times.push(Number(match[2]));
      logged.set(match[1], times);
    }
  });
  // BENCH_SERVICE_STDOUT=<file>: the service's output is kept there too (with `--trace-gc`, its collections).
  const keep = process.env.BENCH_SERVICE_STDOUT;
  if (keep) child.stdout?.on('data', (d: Buffer) => fs.appendFileSync(keep, d));
  child.stdout?.resume();
  const pid = child.pid as number;
  return {
    url,
    pid,
    peakRssMiB: () => procStatusMiB(pid, 'VmHWM'),
    rssMiB: () => procStatusMiB(pid, 'VmRSS'),
    // Writing 5 to clear_refs resets the peak resident set size (Linux 4.0 and later).
    resetPeak: () => fs.writeFileSync(`/proc/${pid}/clear_refs`, '5'),
    cpuSeconds: () => procCpuSeconds(pid),
    // The main thread's task id is the process id.
    mainThreadCpuSeconds: () => procCpuSeconds(pid, `/proc/${pid}/task/${pid}/stat`),
    stderrTail: () => stderr,
    requestLogMs: (line) => [...(logged.get(line) ?? [])],
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** JSON call with the bench bearer token. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the JSON shape it expects
export async function api<T = Record<string, unknown>>(
  base: string,
  route: string,
  init: RequestInit = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(base + route, {
    ...init,
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, ...(init.headers as Record<string, string> | undefined) },
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

export interface BenchRig {
  sim: Simulator;
  service: ServiceProcess;
}

/**
 * A simulator seeded with the fixtures plus `generate` synthetic documents, and the service pointed at it
 * with `files` as its rules dir and a fresh data dir; both are stopped when `run` settles.
 */
export async function withRig<T>(
  setup: {
    generate?: { count: number; seed: number };
    files: Record<string, string>;
    env?: Record<string, string>;
    slow?: SlowDmsProfile;
    nodeArgs?: string[];
    /** A checkout whose built service runs instead of this one (a before/after comparison). */
    root?: string;
  },
  run: (rig: BenchRig) => Promise<T>,
): Promise<T> {
  const sim = await startSimulator({ seedDocuments: true, generate: setup.generate, slow: setup.slow });
  try {
    const service = await startService(
      setup.root ?? process.cwd(),
      {
        SVC_DMS_URL: sim.url,
        SVC_DMS_TOKEN: sim.token,
        SVC_RULES_DIR: rulesDirWith(setup.files),
        SVC_DATA_DIR: tempDir('data'),
        ...setup.env,
      },
      setup.nodeArgs,
    );
    try {
      return await run({ sim, service });
    } finally {
      await service.stop();
    }
  } finally {
    await sim.close();
  }
}
