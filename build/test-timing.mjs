// Loaded into every test process by build/run-tests.mjs (`--import`): when a test file's process exits it
// appends one line to $TEST_TIMINGS_FILE with the file, when it started, its wall time and the CPU it and the
// children it waited for used (child servers, Chromium's browser process; not its renderers, which it never waits
// for), so the runner can name the costly files, start the longest first and say how busy the cores were.
import fs from 'node:fs';

const out = process.env.TEST_TIMINGS_FILE;
const file = process.argv[1] ?? '';

/** CPU seconds of this process and of its reaped children; Linux reads /proc, elsewhere only this process. */
function cpu() {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime are fields 14–17 of stat(5), here 11–14 after the name; in clock ticks (100/s).
    const [utime, stime, cutime, cstime] = fields.slice(11, 15).map((t) => Number(t) / 100);
    return { self: utime + stime, children: cutime + cstime };
  } catch {
    const { user, system } = process.cpuUsage();
    return { self: (user + system) / 1e6, children: 0 };
  }
}

// The runner's own process (the one with --test) is not a test file's.
if (out && file.endsWith('.test.js') && !process.execArgv.includes('--test'))
  process.on('exit', (code) => {
    const line = {
      file,
      code,
      startMs: Math.round(performance.timeOrigin),
      wallMs: Math.round(process.uptime() * 1000),
      ...cpu(),
    };
    fs.appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
