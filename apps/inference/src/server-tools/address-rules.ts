import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Addresses web_fetch never connects to: what is not the public internet.
 * IPv4: "this" network, private (RFC 1918), carrier-grade NAT, loopback, link-local (cloud
 * metadata at 169.254.169.254), IETF protocol assignments, benchmarking, documentation,
 * multicast, reserved and broadcast. IPv6: unspecified, loopback, unique-local (fc00::/7,
 * e.g. fd00:ec2::254 metadata), link-local, site-local, multicast, documentation; IPv4-mapped,
 * IPv4-compatible, NAT64 and 6to4 addresses are judged by the IPv4 address inside.
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 address carries (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16), if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const groups = expandIpv6(lower);
  if (!groups) return undefined;
  const toV4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return toV4(groups[6]!, groups[7]!);
  if (zeros(0, 6) && (groups[6] !== 0 || groups[7]! > 1)) return toV4(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return toV4(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return toV4(groups[1]!, groups[2]!);
  return undefined;
}

function expandIpv6(address: string): number[] | undefined {
  if (address.includes('.')) return undefined;
  const [head, tail] = address.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined;
  return [...left, ...Array<number>(missing).fill(0), ...right];
}

/** True for an address web_fetch must not connect to; also for anything that is not an IP address. */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family !== 6) return true;
  const inner = embeddedIpv4(bare);
  if (inner !== undefined && isForbiddenAddress(inner)) return true;
  return blocked.check(bare, 'ipv6');
}

/**
 * A socket `lookup` that resolves every address of a host and refuses the host if any of them is
 * forbidden, so the address connected to is the address checked (no DNS rebinding in between).
 */
export function publicOnlyLookup(refusal: (hostname: string, address: string) => Error): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family, hints: options.hints }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as LookupAddress[];
      const forbidden = list.find((entry) => isForbiddenAddress(entry.address));
      if (forbidden) return callback(refusal(hostname, forbidden.address), '', 0);
      if (list.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
