/**
 * Privacy and the supply chain (DESIGN section 11): reading the privacy signals of a bid request,
 * decoding them with the IAB Tech Lab's libraries, and giving each demand partner its own reduced
 * copy of the request (or none). Pure functions apart from the decode caches of the enforcer.
 */
export { createPrivacyEnforcer, PRIVACY_BLOCK_REASONS } from './enforce.js';
export type { PartnerPrivacy, PrivacyBlockReason, PrivacyEnforcer, PrivacyEnforcerOptions, RequestPrivacy } from './enforce.js';
export { Reduction, reduceRequest } from './scrub.js';
export { readPrivacySignals } from './signals.js';
export type { PrivacySignals } from './signals.js';
