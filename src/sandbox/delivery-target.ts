// Where a webhook delivery may connect (D-64, D-94). The addresses are decided in the connection step: a name is
// resolved once, every address it gives is checked, and the socket can only use those checked addresses (its
// `lookup` answers them, no second query), so a name that resolves elsewhere the next time cannot slip through.
// Classification is ipaddr.js's (IPv4-mapped IPv6 read as the IPv4 address it carries).
import { promises as dns } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { connect as netConnect, isIP } from 'node:net';
import type { LookupFunction, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import ipaddr from 'ipaddr.js';

/** `any`: no rule (sandbox environment); `public`: global unicast only (production); `loopback`: D-64's test mode. */
export type TargetPolicy = 'any' | 'public' | 'loopback';

/** Resolves a host name to all its addresses (default: the system resolver, as an HTTP client would). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** What a connector is asked to open: the URL's host and port, and the addresses checked for it. */
export interface ConnectTarget {
  hostname: string;
  port: number;
  secure: boolean;
  addresses: LookupAddress[];
}

/** Opens the socket of a delivery (TLS for https) to one of `addresses`; tests pass their own to watch or refuse. */
export type Connector = (target: ConnectTarget) => Socket;

/** A delivery refused for where it would go: recorded as a failed attempt, with this reason. */
export class TargetRefused extends Error {}

export const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true });

/** Why `address` is refused under `policy`, or undefined when allowed. */
export function addressRefusal(address: string, policy: TargetPolicy): string | undefined {
  if (policy === 'any') return undefined;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return `${address}, which is not an IP address`;
  }
  const range = outsideGlobalUnicast(parsed) ?? parsed.range();
  if (policy === 'loopback') return range === 'loopback' ? undefined : `${address}, which is ${range}, not a loopback address`;
  return range === 'unicast' ? undefined : `${address}, which is ${range}, not a public address`;
}

/**
 * The range of an IPv6 address outside 2000::/3 (the only block IANA hands out as global unicast) that ipaddr.js
 * still calls `unicast`: ::/96 is the deprecated IPv4-compatible form (`::7f00:1` is 127.0.0.1 to some stacks, D-94),
 * the rest is unallocated. Undefined for every other address.
 */
function outsideGlobalUnicast(address: ipaddr.IPv4 | ipaddr.IPv6): string | undefined {
  if (address.kind() !== 'ipv6' || address.range() !== 'unicast') return undefined;
  const parts = (address as ipaddr.IPv6).parts;
  if ((parts[0] & 0xe000) === 0x2000) return undefined;
  return parts.slice(0, 6).every((part) => part === 0) ? 'ipv4Compatible' : 'unallocated';
}

/** The checked addresses of a URL's host, or TargetRefused; a literal address is checked without any lookup. */
export async function checkedAddresses(hostname: string, policy: TargetPolicy, resolve: Resolver): Promise<LookupAddress[]> {
  const literal = isIP(hostname);
  const addresses = literal ? [{ address: hostname, family: literal }] : await resolve(hostname);
  if (addresses.length === 0) throw new Error(`${hostname} has no address`);
  for (const { address } of addresses) {
    const why = addressRefusal(address, policy);
    if (why) throw new TargetRefused(literal ? why : `${hostname} resolves to ${why}`);
  }
  return addresses;
}

/** The default connector: TCP, or TLS with the host name for SNI and certificate checks, to the checked addresses. */
export const connectSocket: Connector = ({ hostname, port, secure, addresses }) => {
  const lookup: LookupFunction = (_name, options, callback) => {
    if (options.all) (callback as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  };
  const options = { host: hostname, port, lookup };
  return secure ? tlsConnect({ ...options, servername: isIP(hostname) ? undefined : hostname, ALPNProtocols: ['http/1.1'] }) : netConnect(options);
};
