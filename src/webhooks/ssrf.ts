/**
 * SSRF guard for webhook targets (DESIGN section 6: "https only and public addresses only,
 * checked at registration and at connect time, unless the operator sets
 * `webhooks.allowPrivateTargets`").
 *
 * Two checks, because a name can resolve differently later (DNS rebinding):
 * - at registration, `checkWebhookUrl` (scheme, IP literals, `localhost`) and
 *   `resolveAndCheck` (what the name resolves to now). A name that does not resolve at
 *   registration is accepted: it may be published later, and the connect-time check still
 *   applies to whatever it resolves to then.
 * - at connect time, `guardedLookup` is the `lookup` the dispatcher's undici Agent connects
 *   with: it resolves every address of the name and fails the connection when any of them is
 *   forbidden, so the address checked is the address connected to. IP literals never reach a
 *   lookup (node:net connects to them directly), so the dispatcher also checks the URL's literal
 *   before each attempt.
 *
 * Forbidden ranges: IANA special-purpose registries (RFC 6890 and its updates) for addresses that
 * are not globally reachable, plus multicast. IPv6 forms that embed an IPv4 address
 * (IPv4-mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by the
 * embedded IPv4 address.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/** Answer of the URL and address checks: ok, or the reason shown to the operator. */
export type TargetCheck = { ok: true } | { ok: false; reason: string };

/** IPv4 ranges [network, prefix length] that are not public unicast. */
const FORBIDDEN_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network" (RFC 791)
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback (RFC 1122)
  ['169.254.0.0', 16], // link-local, cloud metadata services (RFC 3927)
  ['172.16.0.0', 12], // private (RFC 1918)
  ['192.0.0.0', 24], // IETF protocol assignments (RFC 6890)
  ['192.0.2.0', 24], // documentation TEST-NET-1 (RFC 5737)
  ['192.88.99.0', 24], // 6to4 relay anycast, deprecated (RFC 7526)
  ['192.168.0.0', 16], // private (RFC 1918)
  ['198.18.0.0', 15], // benchmarking (RFC 2544)
  ['198.51.100.0', 24], // documentation TEST-NET-2 (RFC 5737)
  ['203.0.113.0', 24], // documentation TEST-NET-3 (RFC 5737)
  ['224.0.0.0', 4], // multicast (RFC 5771)
  ['240.0.0.0', 4], // reserved (RFC 1112), includes broadcast 255.255.255.255 (RFC 919)
];

const FORBIDDEN_V4_MASKS = FORBIDDEN_V4.map(([network, bits]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { network: (parseIPv4(network)! & mask) >>> 0, mask };
});

/** IPv4 dotted quad to a 32-bit unsigned integer, or null when not exactly a.b.c.d (0-255 each). */
function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

/** IPv6 text (with `::`, an IPv4 tail, a `%zone`) to its eight 16-bit groups, or null when malformed. */
function parseIPv6(text: string): number[] | null {
  let address = text;
  const zone = address.indexOf('%');
  if (zone >= 0) address = address.slice(0, zone);
  const lastColon = address.lastIndexOf(':');
  if (address.slice(lastColon + 1).includes('.')) {
    // An IPv4 tail (`::ffff:1.2.3.4`) stands for the last two groups.
    const v4 = parseIPv4(address.slice(lastColon + 1));
    if (v4 === null) return null;
    address = `${address.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const parseGroups = (part: string): number[] | null => {
    if (part === '') return [];
    const groups = part.split(':');
    const out: number[] = [];
    for (const group of groups) {
      if (!/^[0-9a-f]{1,4}$/i.test(group)) return null;
      out.push(parseInt(group, 16));
    }
    return out;
  };
  const head = parseGroups(halves[0]!);
  if (head === null) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const rest = parseGroups(halves[1]!);
  if (rest === null || head.length + rest.length > 7) return null;
  return [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest];
}

function isForbiddenV4(value: number): boolean {
  return FORBIDDEN_V4_MASKS.some(({ network, mask }) => ((value & mask) >>> 0) === network);
}

function isForbiddenV6(g: number[]): boolean {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const embedded = ((g6 << 16) >>> 0) + g7;
  const firstSixZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (firstSixZero && g5 === 0xffff) return isForbiddenV4(embedded); // IPv4-mapped ::ffff:0:0/96 (RFC 4291)
  if (firstSixZero && g5 === 0) return true; // ::, ::1 and deprecated IPv4-compatible ::/96 (RFC 4291)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return isForbiddenV4(embedded); // NAT64 (RFC 6052)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return true; // local-use NAT64 64:ff9b:1::/48 (RFC 8215)
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return true; // discard-only 100::/64 (RFC 6666)
  if (g0 === 0x2001 && g1 === 0xdb8) return true; // documentation 2001:db8::/32 (RFC 3849)
  if (g0 === 0x2002) return isForbiddenV4(((g1 << 16) >>> 0) + g2); // 6to4 2002::/16 (RFC 3056)
  if ((g0 & 0xfe00) === 0xfc00) return true; // unique local fc00::/7 (RFC 4193)
  if ((g0 & 0xffc0) === 0xfe80) return true; // link-local fe80::/10 (RFC 4291)
  if ((g0 & 0xffc0) === 0xfec0) return true; // site-local fec0::/10, deprecated (RFC 3879)
  if ((g0 & 0xff00) === 0xff00) return true; // multicast ff00::/8 (RFC 4291)
  return false;
}

/**
 * True when `ip` (an IPv4 or IPv6 literal, brackets and `%zone` allowed) is not a public unicast
 * address: see the module comment for the ranges. Anything that is not an IP literal is
 * forbidden too (fail closed: a lookup answer we cannot read is not connected to).
 */
export function isForbiddenAddress(ip: string): boolean {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const v4 = parseIPv4(text);
  if (v4 !== null) return isForbiddenV4(v4);
  if (!text.includes(':')) return true;
  const v6 = parseIPv6(text);
  return v6 === null ? true : isForbiddenV6(v6);
}

/** True for `localhost` and names under `.localhost`, which always mean loopback (RFC 6761 section 6.3). */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Checks a webhook endpoint URL without touching the network: it must parse as an absolute URL
 * with scheme https, and its host must not be a forbidden IP literal (any notation the WHATWG URL
 * parser normalizes, e.g. `http://2130706433/`, counts) nor `localhost`. With
 * `allowPrivateTargets` (demo, tests, operators on a private network) http is accepted too and
 * hosts are not judged. Never throws.
 */
export function checkWebhookUrl(url: string, options: { allowPrivateTargets: boolean }): TargetCheck {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  const schemes = options.allowPrivateTargets ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(parsed.protocol)) {
    return { ok: false, reason: options.allowPrivateTargets ? 'the URL must use http or https' : 'the URL must use https' };
  }
  if (parsed.hostname === '') return { ok: false, reason: 'the URL has no host' };
  if (options.allowPrivateTargets) return { ok: true };
  const host = parsed.hostname;
  if (isLocalhostName(host)) return { ok: false, reason: 'localhost is not a public address' };
  const literal = host.startsWith('[') ? host.slice(1, -1) : host;
  if (isIP(literal) !== 0 && isForbiddenAddress(literal)) return { ok: false, reason: `${literal} is not a public address` };
  return { ok: true };
}

/** Resolves every address of a name (`dns.lookup` with `all: true`); injected in tests. */
export type ResolveAll = (hostname: string, family: 0 | 4 | 6) => Promise<LookupAddress[]>;

/** The system resolver (getaddrinfo, as node:net uses), all addresses. */
export const systemResolveAll: ResolveAll = (hostname, family) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, family }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

/** Error code of a connection refused by `guardedLookup`. */
export const FORBIDDEN_ADDRESS_CODE = 'ERR_ADX_FORBIDDEN_ADDRESS';

/** An error saying `hostname` resolved to the forbidden `address`; `code` is `FORBIDDEN_ADDRESS_CODE`. */
export function forbiddenAddressError(hostname: string, address: string): Error & { code: string } {
  const error = new Error(`webhook target ${hostname} resolves to ${address}, which is not a public address`) as Error & { code: string };
  error.code = FORBIDDEN_ADDRESS_CODE;
  return error;
}

/**
 * A `dns.lookup`-compatible function (node:net `LookupFunction`) for undici's
 * `connect: { lookup }`: resolves every address of the name with `resolveAll` and calls back
 * with an error (code `FORBIDDEN_ADDRESS_CODE`) when ANY of them is forbidden, otherwise with the
 * addresses in the shape asked for (`all: true` -> the list, else the first address and its
 * family). Checking all addresses, not only the one connected to, keeps a name that mixes public
 * and private answers from being used to reach the private one on a later connection.
 */
export function createGuardedLookup(deps: { resolveAll?: ResolveAll } = {}): LookupFunction {
  const resolveAll = deps.resolveAll ?? systemResolveAll;
  return (hostname, options, callback) => {
    const opts: LookupOptions = typeof options === 'number' ? { family: options } : (options ?? {});
    const familyOption = opts.family === 'IPv4' ? 4 : opts.family === 'IPv6' ? 6 : opts.family;
    const family: 0 | 4 | 6 = familyOption === 4 || familyOption === 6 ? familyOption : 0;
    const answer = (addresses: LookupAddress[]): void => {
      const forbidden = addresses.find((entry) => isForbiddenAddress(entry.address));
      if (forbidden !== undefined) {
        callback(forbiddenAddressError(hostname, forbidden.address) as NodeJS.ErrnoException, '', 0);
        return;
      }
      const first = addresses[0];
      if (first === undefined) {
        const error = new Error(`webhook target ${hostname} has no address`) as NodeJS.ErrnoException;
        error.code = 'ENOTFOUND';
        callback(error, '', 0);
        return;
      }
      if (opts.all === true) callback(null, addresses);
      else callback(null, first.address, first.family);
    };
    const literalFamily = isIP(hostname);
    if (literalFamily !== 0) {
      answer([{ address: hostname, family: literalFamily }]);
      return;
    }
    resolveAll(hostname, family).then(answer, (error: NodeJS.ErrnoException) => callback(error, '', 0));
  };
}

/** `createGuardedLookup()` over the system resolver. */
export const guardedLookup: LookupFunction = createGuardedLookup();

/**
 * Registration-time check of a host name: resolves it and refuses it when any address is
 * forbidden. IP literals are judged directly. A name that does not resolve (no such name, no DNS)
 * is accepted (see the module comment: the connect-time check still applies). Never throws.
 */
export async function resolveAndCheck(hostname: string, deps: { resolveAll?: ResolveAll } = {}): Promise<TargetCheck> {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (isIP(host) !== 0) return isForbiddenAddress(host) ? { ok: false, reason: `${host} is not a public address` } : { ok: true };
  if (isLocalhostName(host)) return { ok: false, reason: 'localhost is not a public address' };
  let addresses: LookupAddress[];
  try {
    addresses = await (deps.resolveAll ?? systemResolveAll)(host, 0);
  } catch {
    return { ok: true };
  }
  const forbidden = addresses.find((entry) => isForbiddenAddress(entry.address));
  return forbidden === undefined ? { ok: true } : { ok: false, reason: `${host} resolves to ${forbidden.address}, which is not a public address` };
}

/**
 * Everything checked at registration (admin API, seed config): `checkWebhookUrl`, then, unless
 * `allowPrivateTargets`, `resolveAndCheck` on the URL's host. Never throws.
 */
export async function checkWebhookTarget(
  url: string,
  options: { allowPrivateTargets: boolean; resolveAll?: ResolveAll },
): Promise<TargetCheck> {
  const syntax = checkWebhookUrl(url, options);
  if (!syntax.ok || options.allowPrivateTargets) return syntax;
  return resolveAndCheck(new URL(url).hostname, options.resolveAll === undefined ? {} : { resolveAll: options.resolveAll });
}
