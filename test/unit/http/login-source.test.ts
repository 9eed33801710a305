import assert from 'node:assert/strict';
import { test } from 'node:test';
import { throttleKey } from '../../../server/http/login-source.js';

test('the throttle counts an IPv6 host by its /64, so it cannot take a fresh address for each guess', () => {
  assert.equal(throttleKey('2001:db8:1:2::1'), '2001:db8:1:2::/64');
  assert.equal(throttleKey('2001:db8:1:2:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64');
  assert.equal(throttleKey('2001:0db8:0001:0002:0:0:0:9'), '2001:db8:1:2::/64');
  assert.equal(throttleKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.notEqual(throttleKey('2001:db8:1:3::1'), throttleKey('2001:db8:1:2::1'));
});

test('IPv4 addresses count one by one, also in their IPv6-mapped form', () => {
  assert.equal(throttleKey('192.168.1.20'), '192.168.1.20');
  assert.equal(throttleKey('::ffff:192.168.1.20'), '192.168.1.20');
  assert.equal(throttleKey('unknown'), 'unknown');
});
