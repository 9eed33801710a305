import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../renderer/src/api.js';
import { loginMessage } from '../../../renderer/src/login-message.js';

describe('sign-in messages', () => {
  it('says only that the credentials are wrong on 403 (no admin yet has its own setup page)', () => {
    const text = loginMessage(new ApiError('Invalid credentials.', 403));
    assert.equal(text, 'Wrong user name or password.');
  });

  it('says when to retry on 429, from Retry-After', () => {
    assert.match(
      loginMessage(new ApiError('Too many attempts.', 429, undefined, undefined, 42)),
      /Try again in 42 seconds \(at .+\)\./,
    );
    assert.match(
      loginMessage(new ApiError('Too many attempts.', 429, undefined, undefined, 240)),
      /Try again in 4 minutes/,
    );
  });

  it("passes any other error's own message through", () => {
    assert.equal(
      loginMessage(new ApiError('The dms-rules service cannot be reached. Is it running?', 0)),
      'The dms-rules service cannot be reached. Is it running?',
    );
  });
});
