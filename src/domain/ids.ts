import { randomBytes } from 'node:crypto';
import { systemClock, type Clock } from './clock.js';

/**
 * Identifier minting. Exchange ids are URL-safe and prefixed by kind so logs and support tickets
 * are readable: `auc_` auction (one per imp auction), `bid_` exchange bid, `req_` outgoing partner
 * request, `pub_` publisher, `dsp_` demand partner, `msg_` webhook message (Standard Webhooks
 * `webhook-id`), `ep_` webhook endpoint.
 */
export type IdKind = 'auc' | 'bid' | 'req' | 'resp' | 'pub' | 'dsp' | 'msg' | 'ep' | 'key' | 'rule' | 'alert';

/** Mints ids; injected so tests can make them predictable. */
export interface IdGenerator {
  /**
   * A new id `<kind>_<22 base64url chars>`: 16 bytes, of which the first 6 are the mint time
   * (unix ms, big-endian) and the other 10 (80 bits) random.
   */
  next(kind: IdKind): string;
}

/** Random bytes per id after the 6-byte time prefix. */
const RANDOM_BYTES = 10;
/** Ids minted per `randomBytes` call. */
const POOL_IDS = 256;

/**
 * Time-prefixed ids from a pooled buffer of crypto-random bytes (one `randomBytes` call per 256
 * ids, which keeps id minting off the bid path's profile).
 *
 * Why a time prefix (the layout of UUIDv7, RFC 9562 section 5.7, and ULID): ids are primary keys
 * of the tables the bid path and the webhook dispatcher write thousands of times a second (`bids`,
 * `outbox_messages`, `delivery_attempts`). Ids minted in the same second share their first six
 * characters, so one commit's rows land on a few neighbouring B-tree pages instead of one random
 * page each; a fully random key dirties (and in WAL mode rewrites) a page per row once the index
 * outgrows the page cache (issue 15 measured it). 80 random bits per millisecond keep ids unique
 * and unguessable enough for what they are: names, never credentials (notice tokens are signed).
 *
 * `clock.now()` gives the time prefix (default the system clock); a clock that goes backwards only
 * costs locality, never uniqueness.
 */
export function createIdGenerator(clock: Pick<Clock, 'now'> = systemClock): IdGenerator {
  let pool = Buffer.alloc(0);
  let offset = 0;
  const id = Buffer.alloc(6 + RANDOM_BYTES);
  return {
    next(kind) {
      if (offset + RANDOM_BYTES > pool.length) {
        pool = randomBytes(RANDOM_BYTES * POOL_IDS);
        offset = 0;
      }
      id.writeUIntBE(Math.max(0, Math.min(clock.now(), 2 ** 48 - 1)), 0, 6);
      pool.copy(id, 6, offset, offset + RANDOM_BYTES);
      offset += RANDOM_BYTES;
      return `${kind}_${id.toString('base64url')}`;
    },
  };
}

/** Predictable ids `<kind>_<n>` for tests. */
export function createSequentialIds(): IdGenerator {
  let n = 0;
  return { next: (kind) => `${kind}_${++n}` };
}
