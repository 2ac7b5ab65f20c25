// The two deployments of the sandbox (docs/security.md, D-113): a developer's loopback sandbox, and a sandbox hosted
// for partners. Binding to an address that is not loopback, or declaring a public URL, makes it hosted; a hosted
// sandbox wants an agent token, serves no demo keys unless told, guards the deliveries of both environments and caps
// connections and request time. Decided once at start, before anything listens.
import { isIP } from 'node:net';

export interface DeploymentOptions {
  /** Interface the server binds (default 127.0.0.1). */
  host?: string;
  /** The URL partners reach the sandbox at (behind a proxy, say); its host is accepted in `Host` (D-112). */
  publicUrl?: string;
  agentToken?: string;
  /** Serve the demo keys at /docs/try-it.json even when hosted. */
  serveDemoKeys?: boolean;
  /** Let deliveries of either environment connect to internal addresses (D-94). */
  allowPrivateWebhooks?: boolean;
  /** Open connections at most, when hosted (default 256). */
  maxConnections?: number;
}

export interface Deployment {
  hosted: boolean;
  /** Why the sandbox is hosted, for the start banner and errors ('' when loopback). */
  reason: string;
  /** Host names (lower case, no port) accepted in `Host` besides loopback names and IP addresses: the public URL's, and
   * the bound interface's when it is a name. */
  publicHosts: string[];
  publicUrl?: string;
  serveDemoKeys: boolean;
  /** The production guard of D-94 applies to sandbox-environment deliveries too. */
  guardSandboxDeliveries: boolean;
  /** Caps of a hosted sandbox; undefined on loopback (Node's defaults). */
  limits?: { maxConnections: number; requestTimeoutMs: number; idleTimeoutMs: number };
}

/** A start the sandbox refuses (exit 2 from the bin). */
export class DeploymentRefused extends Error {}

export const HOSTED_LIMITS = { maxConnections: 256, requestTimeoutMs: 30_000, idleTimeoutMs: 30_000 };

/** Whether an interface is this machine's loopback: `localhost`, 127.0.0.0/8, ::1 or ::ffff:127.x. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  if (isIP(name) === 6) return name === '::1' || /^::ffff:(127\.|7f[0-9a-f]{2}:)/.test(name) || /^(0+:){7}0*1$/.test(name);
  return false;
}

export function resolveDeployment(options: DeploymentOptions): Deployment {
  const host = options.host ?? '127.0.0.1';
  let publicUrl: URL | undefined;
  if (options.publicUrl !== undefined) {
    if (!URL.canParse(options.publicUrl) || !/^https?:$/.test(new URL(options.publicUrl).protocol)) {
      throw new DeploymentRefused(`--public-url wants an http or https URL, got ${options.publicUrl}`);
    }
    publicUrl = new URL(options.publicUrl);
  }
  const reasons: string[] = [];
  if (!isLoopbackHost(host)) reasons.push(`bound to ${host}, which is not a loopback address`);
  if (publicUrl) reasons.push(`public URL ${publicUrl.origin}`);
  const hosted = reasons.length > 0;
  const reason = reasons.join('; ');
  if (hosted && !options.agentToken) {
    throw new DeploymentRefused(
      `hosted (${reason}): the agent API acts as the service desk for every account, so a hosted sandbox requires --agent-token T (see the README of @care-api/sandbox)`,
    );
  }
  const maxConnections = options.maxConnections ?? HOSTED_LIMITS.maxConnections;
  if (!Number.isInteger(maxConnections) || maxConnections < 1) throw new DeploymentRefused(`--max-connections wants a whole number of 1 or more, got ${maxConnections}`);
  return {
    hosted,
    reason,
    // the public URL's host, and the bound interface when it is a name (visitors then use that name)
    publicHosts: [
      ...(publicUrl ? [publicUrl.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1')] : []),
      ...(hosted && isIP(host.replace(/^\[(.*)\]$/, '$1')) === 0 ? [host.toLowerCase().replace(/\.$/, '')] : []),
    ],
    publicUrl: publicUrl?.origin,
    serveDemoKeys: !hosted || options.serveDemoKeys === true,
    guardSandboxDeliveries: hosted && !options.allowPrivateWebhooks,
    limits: hosted ? { ...HOSTED_LIMITS, maxConnections } : undefined,
  };
}

/** What the sandbox exposes, printed at start (one line each). */
export function exposureLines(deployment: Deployment, options: { agentToken?: string; allowPrivateWebhooks?: boolean; loopbackOnly?: boolean }): string[] {
  const lines: string[] = [];
  if (deployment.hosted) {
    lines.push(`HOSTED (${deployment.reason}): reachable by others (see the README of @care-api/sandbox)`);
    lines.push(`  Host accepted     loopback names, IP addresses${deployment.publicHosts.length ? `, ${deployment.publicHosts.join(', ')}` : ''}`);
    lines.push(`  demo keys         ${deployment.serveDemoKeys ? 'SERVED to every visitor at /docs/try-it.json (--serve-demo-keys)' : 'not served (the console asks visitors for a key)'}`);
    lines.push('  agent API         requires the agent token');
    const limits = deployment.limits!;
    lines.push(`  limits            ${limits.maxConnections} connections, ${limits.requestTimeoutMs / 1000} s per request, idle connections closed after ${limits.idleTimeoutMs / 1000} s`);
  } else {
    lines.push('loopback: this machine only; pages of other sites cannot read the demo keys nor call the agent API');
    lines.push(`  agent API         ${options.agentToken ? 'requires the agent token' : 'open to local programs (--agent-token T to require one)'}`);
  }
  const deliveries = options.loopbackOnly
    ? 'loopback addresses only (--loopback-only)'
    : options.allowPrivateWebhooks
      ? 'any address, internal ones included (--allow-private-webhooks)'
      : deployment.guardSandboxDeliveries
        ? 'public addresses only, in both environments'
        : 'public addresses only in production; sandbox deliveries anywhere';
  lines.push(`  webhook delivery  ${deliveries}`);
  return lines;
}
