// Live heap during a catch-up over many changed documents (it must stream with flat memory).
// Run: node --expose-gc --import tsx bench/catch-up-memory.ts [sizes…]   (prints figures, asserts nothing)
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../server/config.js';
import { startSimulator } from '../tools/paperless-sim/simulator.js';
import { createMemoryLogger } from '../server/log.js';
import { startServer } from '../server/server.js';
import { BENCH_RULES, tempDir } from './fixtures.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

async function measure(size: number): Promise<void> {
  const sim = await startSimulator({ generate: { count: size, seed: 7 } });
  const rulesDir = tempDir('rules');
  fs.writeFileSync(path.join(rulesDir, 'bench.yml'), BENCH_RULES);
  const config = loadConfig({
    env: {
      SVC_DMS_URL: sim.url,
      SVC_DMS_TOKEN: sim.token,
      SVC_API_TOKEN: 'bench-token-0123456789',
      SVC_WEBHOOK_DRY_RUN: 'true',
      SVC_CATCH_UP_FROM: '2000-01-01',
      SVC_TRACE_RETENTION: '100',
    },
    overrides: { host: '127.0.0.1', port: 0, dataDir: tempDir('data'), rulesDir },
  });
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const server = await startServer(config, createMemoryLogger());
  let peak = 0;
  const sampler = setInterval(() => {
    gc?.();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 250);
  const started = Date.now();
  let event = await server.services.catchUp.runNow('bench');
  // The start already began one: runNow joined it or ran another; wait until it has seen every document.
  while (event && event.processed < size) event = await server.services.catchUp.runNow('bench');
  clearInterval(sampler);
  console.log(
    `${size.toLocaleString('en')} changed documents: live heap peak +${mib(peak - before)} MiB over the idle service ` +
      `(${event?.processed} processed, ${event?.catchup?.skipped ?? 0} skipped, ${Math.round((Date.now() - started) / 100) / 10} s)`,
  );
  await server.close();
  await sim.close();
}

for (const size of process.argv.slice(2).map(Number).filter(Boolean).length
  ? process.argv.slice(2).map(Number)
  : [2_500, 10_000])
  await measure(size);
