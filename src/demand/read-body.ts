/**
 * Reading partner answers under a byte cap (DESIGN section 5: an answer larger than
 * `demand.maxResponseBytes` is dropped). The cap is enforced while reading and while inflating,
 * so an oversized or gzip-bomb answer costs at most `maxBytes` of memory, never its full size.
 */
import { gunzip, type InputType, type ZlibOptions } from 'node:zlib';

/** A readable byte stream that can be abandoned (undici's response body, a Node Readable). */
export interface AbortableByteStream extends AsyncIterable<Buffer | Uint8Array> {
  destroy(error?: Error): unknown;
}

/**
 * Reads `body` to the end. Answers the bytes, or undefined as soon as more than `maxBytes`
 * have arrived (the stream is destroyed then, which aborts the underlying request).
 * Rejects with the stream's error (socket closed, timeout, abort).
 */
export async function readCapped(body: AbortableByteStream, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > maxBytes) {
      body.destroy();
      return undefined;
    }
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
  }
  const only = chunks.length === 1 ? chunks[0] : undefined;
  return only ?? Buffer.concat(chunks, total);
}

function gunzipAsync(data: InputType, options: ZlibOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    gunzip(data, options, (err, out) => (err ? reject(err) : resolve(out)));
  });
}

/**
 * Inflates gzip `data` (RFC 1952) off the main thread's sync path (zlib async). Answers the
 * inflated bytes, or undefined when they would exceed `maxBytes` (inflation stops at the cap:
 * zlib's `maxOutputLength`). Rejects when `data` is not valid gzip.
 */
export async function gunzipCapped(data: Buffer, maxBytes: number): Promise<Buffer | undefined> {
  try {
    return await gunzipAsync(data, { maxOutputLength: Math.max(1, maxBytes) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return undefined;
    throw err;
  }
}
