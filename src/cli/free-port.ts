import { createServer } from 'node:net';

/**
 * A TCP port free on 127.0.0.1 right now (bound to port 0, then released). Used where a process
 * must know its own port before it starts (the notice URLs embed it). A race with another
 * process taking the port in between is possible but rare on loopback.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
