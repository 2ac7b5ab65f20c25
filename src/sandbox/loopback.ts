// Whether a delivery target is on this machine (D-64): `localhost`, 127.0.0.0/8, ::1 or ::ffff:127.x. Only literal
// addresses and the reserved name count, so no name lookup can send a test's delivery elsewhere.
import { isIPv4, isIPv6 } from 'node:net';

export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIPv4(host)) return host.startsWith('127.');
  if (isIPv6(host)) return host === '::1' || /^::ffff:(127\.|7f[0-9a-f]{2}:)/.test(host);
  return false;
}
