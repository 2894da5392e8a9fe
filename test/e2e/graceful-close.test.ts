/**
 * Graceful stop (issue 7: "SIGTERM drains in-flight requests ... within a bounded time"): closing
 * the exchange while a bid request waits on a partner answers that request (a no-bid at its
 * deadline, not a dropped connection) and then finishes closing, instead of waiting for the
 * client's keep-alive connection to time out.
 */
import { expect, it } from 'vitest';
import { startFakeDsp } from '../fakes/fake-dsp.js';
import { startTestExchange } from '../helpers/exchange.js';

it('close() drains a request in flight and completes within its deadline plus slack', async () => {
  const partner = await startFakeDsp(() => ({ neverAnswer: true }));
  const ex = await startTestExchange({ partners: [{ name: 'silent', endpoint: partner.url }] });
  try {
    const held = ex.bid({ id: 'hold', imp: [{ id: '1', banner: { w: 300, h: 250 } }], tmax: 1000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    await ex.close();
    const closeMs = performance.now() - started;
    const answer = await held;
    expect(answer.status).toBe(204);
    expect(answer.headers.connection).toBe('close');
    expect(closeMs).toBeLessThan(1000 + 2000); // the held request's deadline, plus shutdown work
  } finally {
    await partner.close();
  }
}, 15_000);
