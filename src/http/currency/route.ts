/**
 * Currency rates (DESIGN section 4): `GET /v1/currency/rates` answers
 * `{base: "USD", date, rates: {EUR: 0.92, ...}}` (units per 1 USD); `PUT /v1/currency/rates`
 * replaces the table (admin key). The replacement is kept in the store so a restart keeps it.
 */
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { AdxError } from '../../domain/errors.js';
import type { RatesHolder } from '../../domain/rates-holder.js';
import type { SettingsStore } from '../../storage/ports.js';

const RatesBody = Type.Object({
  base: Type.Optional(Type.Literal('USD')),
  date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
  rates: Type.Record(Type.String({ pattern: '^[A-Z]{3}$' }), Type.Number({ exclusiveMinimum: 0 })),
});

/** Settings key under which an admin-set rates table is kept. */
export const RATES_SETTING = 'currency.rates';

/** Registers the rates routes; `adminAuth` is the admin API's auth hook. */
export async function currencyRoutes(
  app: FastifyInstance,
  options: { rates: RatesHolder; settings: SettingsStore; adminAuth: onRequestAsyncHookHandler },
): Promise<void> {
  app.addHook('onRequest', options.adminAuth);
  app.get('/v1/currency/rates', { schema: { tags: ['currency'], summary: 'Currency rates in force (units per 1 USD)' } }, async () => {
    const table = options.rates.get().table;
    return { base: 'USD', date: table.date, rates: table.rates };
  });
  app.put('/v1/currency/rates', { schema: { tags: ['currency'], summary: 'Replace the rates table', body: RatesBody } }, async (request) => {
    const body = request.body as Static<typeof RatesBody>;
    const table = { base: 'USD' as const, date: body.date, rates: { ...body.rates, USD: 1 } };
    try {
      options.rates.set(table);
    } catch (error) {
      throw new AdxError('invalid_request', (error as Error).message, { errors: [{ field: 'rates', message: (error as Error).message }] });
    }
    await options.settings.set(RATES_SETTING, JSON.stringify(table));
    return { base: 'USD', date: table.date, rates: table.rates };
  });
}
