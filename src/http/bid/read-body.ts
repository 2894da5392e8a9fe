/**
 * Reading the bid request body (DESIGN section 2): `application/json` or `text/plain` (read as
 * JSON), optionally gzip (`Content-Encoding: gzip` or `?gzip=1`), with the decompressed size
 * capped while inflating, so a gzip bomb stops at the limit instead of after it.
 */
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { AdxError } from '../../domain/errors.js';

/** Media types the bid endpoint reads as JSON. A missing Content-Type is read as JSON too (documented leniency). */
export function isAcceptedContentType(contentType: string | undefined): boolean {
  if (contentType === undefined || contentType === '') return true;
  const mediaType = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || mediaType === 'text/plain';
}

/**
 * Which decoding the body needs: `identity` or `gzip`. `gzipParam` is the `gzip` query parameter
 * (Prebid.js sends `?gzip=1` and no Content-Encoding).
 * @throws AdxError `unsupported_media_type` (415) for any other Content-Encoding.
 */
export function bodyEncoding(contentEncoding: string | undefined, gzipParam: unknown): 'identity' | 'gzip' {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return 'gzip';
  if (encoding !== '' && encoding !== 'identity') {
    throw new AdxError('unsupported_media_type', `Content-Encoding ${JSON.stringify(contentEncoding)} is not supported; use gzip or none`);
  }
  return gzipParam === '1' || gzipParam === 'true' ? 'gzip' : 'identity';
}

/**
 * Reads `stream` into one Buffer of at most `limitBytes` decompressed bytes.
 * Rejects with AdxError `payload_too_large` (413) as soon as the limit is passed (compressed or
 * decompressed), and `invalid_request` (400, field `body`) for a corrupt gzip stream.
 */
export function readBody(stream: Readable, encoding: 'identity' | 'gzip', limitBytes: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const source: Readable = encoding === 'gzip' ? stream.pipe(createGunzip({ maxOutputLength: limitBytes + 1 })) : stream;
    let rawSize = 0;

    const finish = (error: Error | null, body?: Buffer): void => {
      if (settled) return;
      settled = true;
      if (error) {
        if (source !== stream) source.destroy();
        stream.resume(); // drain what is left so the connection can answer
        reject(error);
      } else {
        resolve(body!);
      }
    };

    if (source !== stream) {
      stream.on('data', (chunk: Buffer) => {
        rawSize += chunk.length;
        if (rawSize > limitBytes) finish(new AdxError('payload_too_large', `the compressed body is larger than ${limitBytes} bytes`));
      });
      stream.on('error', (error) => finish(error));
    }
    source.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limitBytes) {
        finish(new AdxError('payload_too_large', `the decompressed body is larger than ${limitBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    source.on('end', () => finish(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    source.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ERR_BUFFER_TOO_LARGE' || error.code === 'ERR_OUT_OF_RANGE') {
        finish(new AdxError('payload_too_large', `the decompressed body is larger than ${limitBytes} bytes`));
      } else if (encoding === 'gzip' && error.code?.startsWith('Z_')) {
        finish(new AdxError('invalid_request', 'the body is not valid gzip', { errors: [{ field: 'body', message: 'is not valid gzip' }] }));
      } else {
        finish(error);
      }
    });
  });
}

/**
 * Parses the body as JSON. Invalid UTF-8 is replaced (U+FFFD) rather than failing, then JSON
 * rules apply. @throws AdxError `invalid_request` (field `body`) for invalid JSON.
 */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) {
    throw new AdxError('invalid_request', 'the body is empty', { errors: [{ field: 'body', message: 'is empty' }] });
  }
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new AdxError('invalid_request', 'the body is not valid JSON', { errors: [{ field: 'body', message: 'is not valid JSON' }] });
  }
}
