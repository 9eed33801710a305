import jwt from 'jsonwebtoken';

export const SESSION_COOKIE = 'svc_session';
export const SESSION_LIFETIME_SECONDS = 12 * 60 * 60;

export interface Session {
  username: string;
  /** Fingerprint of the admin credential the session was signed under (see AuthService). */
  credential: string;
}

export interface SessionSigner {
  sign(username: string, credential: string): string;
  /** The session, or null for anything not signed by us with HS256 and unexpired. */
  verify(token: string): Session | null;
}

export function createSessionSigner(secret: string): SessionSigner {
  return {
    sign: (username, credential) =>
      jwt.sign({ sub: username, cv: credential }, secret, { algorithm: 'HS256', expiresIn: SESSION_LIFETIME_SECONDS }),
    verify: (token) => {
      try {
        // Pinning the algorithm refuses `alg: none` and key-confusion tricks.
        const payload = jwt.verify(token, secret, { algorithms: ['HS256'] });
        if (typeof payload !== 'object' || typeof payload.sub !== 'string' || typeof payload.cv !== 'string') return null;
        return { username: payload.sub, credential: payload.cv };
      } catch {
        return null;
      }
    },
  };
}
