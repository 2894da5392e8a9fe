/**
 * Admin API authentication (DESIGN section 7): every admin route requires
 * `Authorization: Bearer <ADX_ADMIN_KEY>` (RFC 6750 section 2.1). The comparison is constant-time;
 * an empty configured key disables the admin API (every call answers 401), so an exchange
 * started without `ADX_ADMIN_KEY` is never open.
 */
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { safeEqual } from '../../admin/api-keys.js';
import { AdxError } from '../../domain/errors.js';

/** `WWW-Authenticate` challenge sent with every 401 (RFC 6750 section 3). */
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="adx-admin"' };

/** Extracts the token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or undefined. */
export function bearerToken(request: Pick<FastifyRequest, 'headers'>): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}

/**
 * An `onRequest` hook refusing requests without the admin key. Register it inside the
 * encapsulated plugin of the admin routes (webhook, alert and report routes may reuse it).
 * @param adminKey the configured key; '' refuses every request.
 * @throws AdxError `unauthorized` (401, with a Bearer challenge) from the hook.
 */
export function createAdminAuthHook(adminKey: string): onRequestAsyncHookHandler {
  return async function adminAuth(request) {
    if (adminKey === '') {
      throw new AdxError('unauthorized', 'the admin API is disabled: no admin key is configured (ADX_ADMIN_KEY)', { headers: CHALLENGE });
    }
    const token = bearerToken(request);
    if (token === undefined) {
      throw new AdxError('unauthorized', 'missing Authorization: Bearer <admin key>', { headers: CHALLENGE });
    }
    if (!safeEqual(token, adminKey)) {
      throw new AdxError('unauthorized', 'wrong admin key', { headers: CHALLENGE });
    }
  };
}
