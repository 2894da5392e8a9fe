/**
 * Partner parameters of the generic OpenRTB 2.5 adapter. The generic adapter needs nothing
 * beyond the partner record (endpoint, currency, gzip), so its schema is an open object: any
 * params an operator stores are accepted and ignored. A partner-specific adapter folder puts
 * its required params here (STYLE 1, after Prebid Server's `static/bidder-params/<name>.json`).
 */
import { Type, type Static } from '@sinclair/typebox';

/** JSON schema (TypeBox) of the generic adapter's params: an object with no required field. */
export const Openrtb25Params = Type.Object({}, { additionalProperties: true, description: 'openrtb25 adapter params (none required)' });

/** The params' static type. */
export type Openrtb25Params = Static<typeof Openrtb25Params>;
