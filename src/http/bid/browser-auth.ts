/**
 * Browser supply auth (DESIGN section 2): a bid request without `Authorization` comes from a
 * page (no key can live there). The publisher is the one whose id equals `site.publisher.id`
 * (or `app.publisher.id`); it must have `browser_access`, and the `Origin` host (port ignored)
 * must be one of its `domains` or a subdomain of one.
 */
import { AdxError } from '../../domain/errors.js';
import type { BidRequest } from '../../domain/openrtb.js';
import type { PublisherRecord } from '../../storage/ports.js';

/** The publisher id a browser request claims (`site.publisher.id`, else `app.publisher.id`). */
export function claimedPublisherId(request: BidRequest): string | undefined {
  const id = request.site?.publisher?.id ?? request.app?.publisher?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The host of an `Origin` header value, lower-cased without port, or undefined when it is not a URL. */
export function originHost(origin: string | undefined): string | undefined {
  if (!origin || origin === 'null') return undefined;
  try {
    return new URL(origin).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
}

/** True when `host` is one of `domains` or a subdomain of one (`a.news.example` under `news.example`). */
export function hostAllowed(host: string, domains: readonly string[]): boolean {
  return domains.some((domain) => {
    const d = domain.toLowerCase();
    return host === d || host.endsWith(`.${d}`);
  });
}

/**
 * Checks a browser request. @throws AdxError `unauthorized` (401) when no publisher is named or
 * it is unknown, `forbidden` (403) when it has no browser access or the origin is not allowed.
 */
export function authorizeBrowser(publisher: PublisherRecord | undefined, claimedId: string | undefined, origin: string | undefined): PublisherRecord {
  if (!claimedId) throw new AdxError('unauthorized', 'send the publisher API key as Authorization: Bearer <key>, or site.publisher.id for browser supply');
  if (!publisher) throw new AdxError('unauthorized', `unknown publisher ${JSON.stringify(claimedId)}`);
  if (!publisher.browserAccess) throw new AdxError('forbidden', 'browser access is not enabled for this publisher');
  const host = originHost(origin);
  if (!host) throw new AdxError('forbidden', 'browser requests must carry an Origin header');
  if (!hostAllowed(host, publisher.domains)) throw new AdxError('forbidden', `origin ${host} is not among the publisher's domains`);
  return publisher;
}
