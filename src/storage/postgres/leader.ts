/**
 * Leadership for cluster-wide singletons (DESIGN section 6 / issue 5): the `report.daily`
 * scheduler and alert evaluation must run once across the cluster, not once per node. Each such
 * job asks its `LeaderLock` before a run and skips the run when this node is not the leader.
 *
 * - PostgreSQL (`createPgLeaderLock`): a session-level advisory lock,
 *   `pg_try_advisory_lock(hashtextextended(name, 0))`, held on one dedicated pool connection. The
 *   server releases it when that session ends (node killed, connection cut), so another node
 *   takes over on its next `isLeader()`. A node that loses its connection notices (the client's
 *   `error`/`end` events, or a `select 1` check at most every `verifyIntervalMs`) and tries to
 *   acquire the lock again on a new connection.
 * - SQLite (`createLocalLeaderLock`): one node per database, so always the leader.
 *
 * Leadership is advisory: between a connection dying and the holder noticing, two nodes may both
 * believe they lead for up to `verifyIntervalMs`. The jobs are safe anyway, because their effects
 * are compare-and-set in the store (`ReportingStore.recordReportDelivery`, `transitionAlert`);
 * the lock only keeps N nodes from doing the same work N times.
 */
import type pg from 'pg';
import { systemClock, type Clock } from '../../domain/clock.js';
import type { Store } from '../ports.js';

/** A named cluster-wide lock: whoever holds it runs the singleton job. */
export interface LeaderLock {
  /**
   * True when this node holds the lock, acquiring it when it is free. Resolves false (never
   * rejects) when another node holds it, when the store is unreachable, or after `release()`.
   */
  isLeader(): Promise<boolean>;
  /** Gives the lock up (another node may take it at once) and stops trying. Idempotent. */
  release(): Promise<void>;
}

/** The always-leader lock of a single-node store (SQLite). `release()` makes it answer false. */
export function createLocalLeaderLock(): LeaderLock {
  let released = false;
  return {
    isLeader: async () => !released,
    release: async () => {
      released = true;
    },
  };
}

/** Options of `createPgLeaderLock`. */
export interface PgLeaderLockOptions {
  /** Clock for spacing the connection checks (default: the system clock). */
  clock?: Clock;
  /**
   * While holding the lock, `isLeader()` runs `select 1` on the lock's connection when the last
   * check is at least this old (ms; default 1000; 0 = on every call) to find a silently dead one.
   */
  verifyIntervalMs?: number;
}

/** What `createPgLeaderLock` needs of a `pg.Pool`. */
export type LeaderLockPool = Pick<pg.Pool, 'connect'>;

/**
 * A leader lock named `name` over `pool` (see the module comment). The lock key is
 * `hashtextextended(name, 0)`: names are namespaced by the caller (the PostgreSQL store prefixes
 * its schema). The lock holds one pool connection while leading and none otherwise.
 */
export function createPgLeaderLock(pool: LeaderLockPool, name: string, options: PgLeaderLockOptions = {}): LeaderLock {
  const clock = options.clock ?? systemClock;
  const verifyIntervalMs = options.verifyIntervalMs ?? 1000;
  let client: pg.PoolClient | undefined;
  let verifiedAtMs = 0;
  let released = false;
  let pending: Promise<boolean> | undefined;

  /** Forgets the connection (destroying it: its session, and so the lock, must not be reused). */
  const drop = (error?: Error): void => {
    const lost = client;
    client = undefined;
    if (lost) {
      lost.removeListener('error', onLost);
      lost.removeListener('end', onEnd);
      lost.release(error ?? new Error('leader lock connection lost'));
    }
  };
  const onLost = (error: Error): void => drop(error);
  const onEnd = (): void => drop();

  const acquire = async (): Promise<boolean> => {
    let candidate: pg.PoolClient;
    try {
      candidate = await pool.connect();
    } catch {
      return false;
    }
    // An error on a checked-out client with no listener would crash the process.
    candidate.on('error', onLost);
    try {
      const result = await candidate.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtextextended($1, 0)) as locked', [name]);
      if (result.rows[0]?.locked === true && !released) {
        client = candidate;
        candidate.on('end', onEnd);
        verifiedAtMs = clock.monotonicMs();
        return true;
      }
      if (result.rows[0]?.locked === true) await candidate.query('select pg_advisory_unlock(hashtextextended($1, 0))', [name]);
      candidate.removeListener('error', onLost);
      candidate.release();
      return false;
    } catch (error) {
      candidate.removeListener('error', onLost);
      candidate.release(error instanceof Error ? error : new Error(String(error)));
      return false;
    }
  };

  const check = async (): Promise<boolean> => {
    if (released) return false;
    if (client !== undefined) {
      if (clock.monotonicMs() - verifiedAtMs < verifyIntervalMs) return true;
      try {
        await client.query('select 1');
        verifiedAtMs = clock.monotonicMs();
        return true;
      } catch (error) {
        drop(error instanceof Error ? error : new Error(String(error)));
      }
    }
    return acquire();
  };

  return {
    isLeader(): Promise<boolean> {
      // One check at a time: concurrent callers share its answer instead of taking two connections.
      pending ??= check().finally(() => {
        pending = undefined;
      });
      return pending;
    },

    async release(): Promise<void> {
      released = true;
      await pending?.catch(() => undefined);
      const held = client;
      if (held === undefined) return;
      client = undefined;
      held.removeListener('end', onEnd);
      try {
        await held.query('select pg_advisory_unlock(hashtextextended($1, 0))', [name]);
        held.removeListener('error', onLost);
        held.release();
      } catch (error) {
        // The session is gone or broken: the server has released (or will release) the lock with it.
        held.removeListener('error', onLost);
        held.release(error instanceof Error ? error : new Error(String(error)));
      }
    },
  };
}

/** A store that can make cluster-wide leader locks (the PostgreSQL store). */
export interface LeaderLockSource {
  createLeaderLock(name: string): LeaderLock;
}

/**
 * The leader lock for the job `name` on `store`: the store's own (PostgreSQL: an advisory lock
 * scoped to its schema) when it makes them, else `createLocalLeaderLock()` (SQLite: one node).
 */
export function leaderLockFor(store: Store | (Store & LeaderLockSource), name: string): LeaderLock {
  return 'createLeaderLock' in store && typeof store.createLeaderLock === 'function' ? store.createLeaderLock(name) : createLocalLeaderLock();
}
