import { randomBytes } from 'node:crypto';

/**
 * Identifier minting. Exchange ids are random, URL-safe and prefixed by kind so logs and
 * support tickets are readable: `auc_` auction (one per imp auction), `bid_` exchange bid,
 * `req_` outgoing partner request, `pub_` publisher, `dsp_` demand partner, `msg_` webhook message
 * (Standard Webhooks `webhook-id`), `ep_` webhook endpoint.
 */
export type IdKind = 'auc' | 'bid' | 'req' | 'resp' | 'pub' | 'dsp' | 'msg' | 'ep' | 'key' | 'rule' | 'alert';

/** Mints ids; injected so tests can make them predictable. */
export interface IdGenerator {
  /** A new id `<kind>_<22 base64url chars>` (128 random bits). */
  next(kind: IdKind): string;
}

/**
 * Random ids from a pooled buffer of crypto-random bytes (one `randomBytes` call per 256 ids,
 * which keeps id minting off the bid path's profile).
 */
export function createIdGenerator(): IdGenerator {
  let pool = Buffer.alloc(0);
  let offset = 0;
  return {
    next(kind) {
      if (offset + 16 > pool.length) {
        pool = randomBytes(16 * 256);
        offset = 0;
      }
      const id = pool.toString('base64url', offset, offset + 16);
      offset += 16;
      return `${kind}_${id}`;
    },
  };
}

/** Predictable ids `<kind>_<n>` for tests. */
export function createSequentialIds(): IdGenerator {
  let n = 0;
  return { next: (kind) => `${kind}_${++n}` };
}
