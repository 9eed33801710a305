import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { startChildServer } from '../helpers/child-server.js';

test('npm start on a port already in use says so and exits with 1, instead of staying up without listening', async () => {
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const { port } = taken.address() as net.AddressInfo;
  try {
    // With the demo dms and an evaluation worker started before the listen fails, as on a first start.
    await assert.rejects(startChildServer({ SVC_PORT: String(port), SVC_EVAL_WORKERS: '1' }), (err: Error) => {
      assert.match(err.message, /^server exited with 1:/);
      assert.match(err.message, /cannot listen: the address is already in use .*; set SVC_PORT to a free port/);
      return true;
    });
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
});
