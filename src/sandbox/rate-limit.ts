// The optional rate limit of the sandbox (D-31: 429 with Retry-After), to let clients test their back-off; its quota
// is told on every answer in the IETF RateLimit and RateLimit-Policy fields the description declares (D-102).

/** What the limiter says of one request: whether it may go, and the quota to tell the client. */
export interface RateDecision {
  /** 0 when the request may go, else the whole seconds to wait (for Retry-After). */
  wait: number;
  /** The `RateLimit` and `RateLimit-Policy` fields of the answer. */
  headers: { RateLimit: string; 'RateLimit-Policy': string };
}

/** The policy's name in both fields (a structured-field string). */
const POLICY = '"default"';

/**
 * A token bucket per API key: `perSecond` requests a second, bursts up to the same number. The window of the policy
 * is one second; `r` is the whole requests left in the bucket, `t` the seconds until it has refilled.
 */
export function rateLimiter(perSecond: number, now: () => number) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const policy = `${POLICY};q=${perSecond};w=1`;
  return (key: string): RateDecision => {
    const t = now();
    const bucket = buckets.get(key) ?? { tokens: perSecond, at: t };
    bucket.tokens = Math.min(perSecond, bucket.tokens + ((t - bucket.at) / 1000) * perSecond);
    bucket.at = t;
    buckets.set(key, bucket);
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    const remaining = Math.floor(bucket.tokens);
    const refill = Math.ceil((perSecond - bucket.tokens) / perSecond);
    const headers = { RateLimit: `${POLICY};r=${remaining};t=${refill}`, 'RateLimit-Policy': policy };
    return { wait: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond)), headers };
  };
}
