/**
 * IP address masking (DESIGN section 11): IPv4 keeps its first 24 bits (last octet 0), IPv6 its
 * first 48 bits (the routing prefix a /48 site gets, as Prebid Server's default
 * `ipv6_anon_keep_bits`). Pure.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** `a.b.c.d` -> `a.b.c.0`; undefined when `ip` is not a dotted-quad IPv4 address. */
export function maskIpv4(ip: string): string | undefined {
  if (!isIPv4(ip)) return undefined;
  return `${ip.slice(0, ip.lastIndexOf('.'))}.0`;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, an embedded IPv4 tail converted). */
function ipv6Groups(ip: string): number[] {
  let text = ip;
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const [a, b, c, d] = last.split('.').map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    text = text.slice(0, lastColon + 1) + '0';
    // The '0' placeholder is replaced below by the two groups of the IPv4 tail.
  }
  const [head, rest] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  let groups: number[];
  if (rest === undefined) groups = parse(head);
  else {
    const left = parse(head);
    const right = parse(rest);
    const fill = 8 - (tail.length > 0 ? 1 : 0) - left.length - right.length;
    groups = [...left, ...new Array<number>(Math.max(0, fill)).fill(0), ...right];
  }
  if (tail.length > 0) groups = [...groups.slice(0, -1), ...tail];
  return groups;
}

/**
 * The address with only its first 48 bits kept, in compressed form (`2001:db8:85a3::`);
 * undefined when `ip` is not an IPv6 address.
 */
export function maskIpv6(ip: string): string | undefined {
  if (!isIPv6(ip)) return undefined;
  const groups = ipv6Groups(ip);
  const kept = groups.slice(0, 3);
  // Trailing zero groups of the kept prefix fold into the `::`.
  while (kept.length > 0 && kept[kept.length - 1] === 0) kept.pop();
  return `${kept.map((g) => g.toString(16)).join(':')}::`;
}

/** Masks an address of either family (IPv4 to /24, IPv6 to /48); undefined when it is neither. */
export function maskIp(ip: string): string | undefined {
  return maskIpv4(ip) ?? maskIpv6(ip);
}
