/**
 * Logging (pino). Nothing on the bid path logs at info level; errors and lifecycle events do.
 * Secrets never reach a log line: the redact list covers the headers and fields that carry them.
 */
import { pino, type Logger } from 'pino';

/** The pino logger type used across the code base. */
export type { Logger };

/** A JSON logger at `level` writing to stdout (or `destination`). */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'adx' },
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'api_key', 'secret', 'apiKey', '*.api_key', '*.secret'],
        censor: '[redacted]',
      },
    },
    destination as pino.DestinationStream | undefined,
  );
}

/** A logger that writes nothing (tests that do not look at logs). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
