import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import jwt from 'jsonwebtoken';
import { createSessionSigner } from '../../../server/auth/sessions.js';

const SECRET = 'a-session-secret-of-the-data-dir-0123456789';

describe('session tokens', () => {
  it('verifies a token signed with the secret as a string, so sessions outlive an update of the service', () => {
    const token = jwt.sign({ sub: 'admin', cv: 'fp', jti: 'j1' }, SECRET, { algorithm: 'HS256', expiresIn: 60 });
    const session = createSessionSigner(SECRET).verify(token);
    assert.equal(session?.username, 'admin');
    assert.equal(session?.credential, 'fp');
    assert.equal(session?.id, 'j1');
  });

  it('signs tokens that the secret as a string verifies', () => {
    const token = createSessionSigner(SECRET).sign('admin', 'fp');
    const payload = jwt.verify(token, SECRET, { algorithms: ['HS256'] }) as jwt.JwtPayload;
    assert.equal(payload.sub, 'admin');
  });

  it('refuses a token signed with another secret, and one without a signature', () => {
    const signer = createSessionSigner(SECRET);
    const other = createSessionSigner(`${SECRET}x`).sign('admin', 'fp');
    assert.equal(signer.verify(other), null);
    const unsigned = jwt.sign({ sub: 'admin', cv: 'fp', jti: 'j1' }, null, { algorithm: 'none', expiresIn: 60 });
    assert.equal(signer.verify(unsigned), null);
  });
});
