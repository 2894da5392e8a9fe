/**
 * Starting our own CLI as child processes (demo, bench): spawn `node dist/cli/index.js <args>`
 * and wait until it prints its loopback URL. Stopped by pid with SIGTERM (SIGKILL after a grace).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A started child and the URL it printed. */
export interface StartedChild {
  url: string;
  child: ChildProcess;
  /** Everything the child printed so far (stdout + stderr), for diagnostics and parsing. */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the child has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Path of the compiled CLI entry next to this module. */
export const CLI_PATH = fileURLToPath(new URL('./index.js', import.meta.url));

/**
 * Spawns `node CLI_PATH ...args` and resolves with the first `http://127.0.0.1:<port>` URL
 * printed on a line matching `readyPattern`. Rejects when the child exits first or after `timeoutMs`.
 * `cliPath` overrides the entry (tests run the built `dist/cli/index.js`).
 */
export function startCliChild(
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    readyPattern?: RegExp;
    timeoutMs?: number;
    nodeArgs?: string[];
    cliPath?: string;
    /** Own process group: a terminal's Ctrl-C reaches the parent only, which then stops the child itself. */
    detached?: boolean;
  } = {},
): Promise<StartedChild> {
  const readyPattern = options.readyPattern ?? /listening/i;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.cliPath ?? CLI_PATH, ...args], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (graceMs = 5000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return new Promise<StartedChild>((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop(0);
      reject(new Error(`child ${args.join(' ')} did not print its URL within ${options.timeoutMs ?? 30_000} ms:\n${output}`));
    }, options.timeoutMs ?? 30_000);
    let resolved = false;
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (resolved) return;
      for (const line of output.split('\n')) {
        if (!readyPattern.test(line)) continue;
        const match = /https?:\/\/127\.0\.0\.1:\d+/.exec(line);
        if (match) {
          resolved = true;
          clearTimeout(timer);
          resolve({ url: match[0], child, output: () => output, stop });
          return;
        }
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => {
      if (resolved) return;
      clearTimeout(timer);
      reject(new Error(`child ${args.join(' ')} exited (${code ?? signal}) before it was ready:\n${output}`));
    });
  });
}
