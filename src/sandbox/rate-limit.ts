// The optional rate limit of the sandbox (D-31: 429 with Retry-After), to let clients test their back-off.

/**
 * A token bucket per API key: `perSecond` requests a second, bursts up to the same number. Answers 0 when the request
 * may go, else the whole seconds to wait (for Retry-After).
 */
export function rateLimiter(perSecond: number, now: () => number) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (key: string): number => {
    const t = now();
    const bucket = buckets.get(key) ?? { tokens: perSecond, at: t };
    bucket.tokens = Math.min(perSecond, bucket.tokens + ((t - bucket.at) / 1000) * perSecond);
    bucket.at = t;
    buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
  };
}
