import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSameMachineRequest } from '../../../server/auth/same-machine.js';

describe('isSameMachineRequest', () => {
  const cases: Array<[string | undefined, string | undefined, boolean]> = [
    ['127.0.0.1', 'localhost:8484', true],
    ['127.0.0.1', '127.0.0.1:8484', true],
    ['::1', '[::1]:8484', true],
    ['::ffff:127.0.0.1', 'LOCALHOST', true],
    ['127.0.0.1', 'attacker.example:8484', false], // DNS rebinding: loopback peer, foreign name
    ['127.0.0.1', 'localhost.attacker.example', false],
    ['127.0.0.1', 'localhost@evil', false],
    ['127.0.0.1', undefined, false],
    ['192.168.1.20', 'localhost:8484', false],
    ['::ffff:10.0.0.1', '127.0.0.1', false],
    [undefined, 'localhost', false],
  ];
  for (const [remoteAddress, host, expected] of cases) {
    it(`${expected ? 'accepts' : 'refuses'} ${remoteAddress} with Host ${host}`, () => {
      assert.equal(isSameMachineRequest({ remoteAddress, host }), expected);
    });
  }
  it('refuses a loopback request a local reverse proxy forwarded for another machine', () => {
    assert.equal(isSameMachineRequest({ remoteAddress: '127.0.0.1', host: 'localhost:8484', forwarded: true }), false);
  });
});
