import { describe, expect, it } from 'vitest';
import { createGroupCommitter } from '../../src/storage/group-commit.js';

/** A write function that records its batches and can be told to fail or to hold. */
function recorder() {
  const batches: number[][] = [];
  let failNext: Error | undefined;
  let gate: Promise<void> | undefined;
  return {
    batches,
    failNextWith(error: Error) {
      failNext = error;
    },
    hold() {
      let release!: () => void;
      gate = new Promise<void>((resolve) => (release = resolve));
      return () => {
        gate = undefined;
        release();
      };
    },
    write: async (items: number[]) => {
      batches.push([...items]);
      if (gate) await gate;
      if (failNext) {
        const error = failNext;
        failNext = undefined;
        throw error;
      }
    },
  };
}

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

describe('group committer', () => {
  it('writes concurrent submits in one write call and resolves every submitter after it', async () => {
    const r = recorder();
    const committer = createGroupCommitter({ write: r.write, maxDelayMs: 0 });
    const settled: number[] = [];
    await Promise.all(Array.from({ length: 50 }, (_, i) => committer.submit(i).then(() => settled.push(i))));
    expect(r.batches).toEqual([Array.from({ length: 50 }, (_, i) => i)]);
    expect(settled).toHaveLength(50);
  });

  it('gathers submits within the maxDelayMs window into one batch', async () => {
    const r = recorder();
    const committer = createGroupCommitter({ write: r.write, maxDelayMs: 50 });
    const first = committer.submit(1);
    await new Promise((resolve) => setImmediate(resolve));
    const second = committer.submit(2);
    await Promise.all([first, second]);
    expect(r.batches).toEqual([[1, 2]]);
  });

  it('does not resolve a submitter before its write has resolved', async () => {
    const r = recorder();
    const release = r.hold();
    const committer = createGroupCommitter({ write: r.write, maxDelayMs: 0 });
    let done = false;
    const pending = committer.submit(1).then(() => (done = true));
    await tick(10);
    expect(r.batches).toEqual([[1]]);
    expect(done).toBe(false);
    release();
    await pending;
    expect(done).toBe(true);
  });

  it('splits at maxBatch, writing a full batch without waiting for the window', async () => {
    const r = recorder();
    const committer = createGroupCommitter({ write: r.write, maxDelayMs: 60_000, maxBatch: 3 });
    const submits = [1, 2, 3, 4, 5, 6, 7].map((i) => committer.submit(i));
    // The first two batches are full: they go out at once, the window never matters.
    await Promise.all(submits.slice(0, 6));
    expect(r.batches).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    await committer.flush();
    await submits[6];
    expect(r.batches).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  });

  it('queues submits made during a write for the next batch', async () => {
    const r = recorder();
    const release = r.hold();
    const committer = createGroupCommitter({ write: r.write, maxDelayMs: 0 });
    const first = committer.submit(1);
    await tick();
    const during = [committer.submit(2), committer.submit(3), committer.submit(4)];
    await tick();
    expect(r.batches).toEqual([[1]]);
    release();
    await Promise.all([first, ...during]);
    expect(r.batches).toEqual([[1], [2, 3, 4]]);
  });

  it('a failed write rejects all its submitters, and the next batch still works', async () => {
    const r = recorder();
    const committer = createGroupCommitter({ write: r.write, maxDelayMs: 0 });
    r.failNextWith(new Error('disk full'));
    const failed = await Promise.allSettled([committer.submit(1), committer.submit(2)]);
    expect(failed.map((s) => (s.status === 'rejected' ? (s.reason as Error).message : 'fulfilled'))).toEqual(['disk full', 'disk full']);
    await Promise.all([committer.submit(3), committer.submit(4)]);
    expect(r.batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('a write that throws synchronously rejects its submitters too', async () => {
    const committer = createGroupCommitter<number>({
      write: () => {
        throw new Error('sync boom');
      },
      maxDelayMs: 0,
    });
    await expect(committer.submit(1)).rejects.toThrow('sync boom');
  });

  it('flush writes at once without waiting for the window', async () => {
    const r = recorder();
    const committer = createGroupCommitter({ write: r.write, maxDelayMs: 60_000 });
    const submits = [committer.submit(1), committer.submit(2)];
    await committer.flush();
    expect(r.batches).toEqual([[1, 2]]);
    await Promise.all(submits);
    await committer.flush(); // nothing queued: resolves at once
    expect(r.batches).toHaveLength(1);
  });

  it('flush does not reject when the write fails (the submitters do)', async () => {
    const r = recorder();
    const committer = createGroupCommitter({ write: r.write, maxDelayMs: 60_000 });
    r.failNextWith(new Error('nope'));
    const submit = committer.submit(1);
    const outcome = submit.catch((error: Error) => error.message);
    await expect(committer.flush()).resolves.toBeUndefined();
    expect(await outcome).toBe('nope');
  });

  it('close drains what is queued and running, then refuses new submits', async () => {
    const r = recorder();
    const release = r.hold();
    const committer = createGroupCommitter({ write: r.write, maxDelayMs: 0 });
    const first = committer.submit(1);
    await tick();
    const second = committer.submit(2);
    const closing = committer.close();
    await expect(committer.submit(3)).rejects.toThrow(/closed/);
    release();
    await closing;
    await Promise.all([first, second]);
    expect(r.batches).toEqual([[1], [2]]);
  });

  it('rejects a negative maxDelayMs', () => {
    expect(() => createGroupCommitter({ write: async () => {}, maxDelayMs: -1 })).toThrow(RangeError);
  });
});
