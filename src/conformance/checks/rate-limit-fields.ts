// Area "operations", D-102: the RateLimit and RateLimit-Policy fields, judged on every answer the run got (the run's
// own traffic, no request of its own: safe on any target). A deployment that limits the rate sends both, in the
// declared form, on every 2xx and 429; one that does not limit sends neither, and a 429 shows that it limits.
import { CheckFailure, Skip, type Check } from '../check.ts';

export const rateLimitFieldChecks: Check[] = [
  {
    id: 'operations.rate-limit-fields',
    area: 'operations',
    title: 'RateLimit and RateLimit-Policy: both or neither, in the declared form, on every 2xx and 429 of a deployment that sends them',
    statements: ['D-102.rate-limit-headers'],
    needs: ['state'], // a mock answers the examples of the headers it declares, on some answers and not others
    last: true,
    async run(ctx) {
      const fields = ctx.observed.rateLimit;
      if (fields.names.length === 0 || Object.keys(fields.patterns).length < fields.names.length) throw new Skip('the description declares no RateLimit fields, or one without a pattern');
      if (fields.malformed) throw new CheckFailure(fields.malformed.why, fields.malformed.exchange);
      const without = fields.without;
      if (without && (fields.carried > 0 || without.status === 429)) {
        const why = without.status === 429
          ? 'a 429 without RateLimit and RateLimit-Policy: a deployment that limits the rate tells its quota (D-102)'
          : `${fields.carried} answers carried RateLimit and RateLimit-Policy, this ${without.status} none: a deployment that limits tells it on every answer`;
        throw new CheckFailure(why, without);
      }
      return fields.carried ? `${fields.carried} answers carried both fields in the declared form` : 'no answer carried RateLimit fields: the deployment publishes no limit';
    },
  },
];
