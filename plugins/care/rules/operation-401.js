import { onPathOperations } from '../resolve.js';

/**
 * Every operation under `paths` declares its 401 answer: every endpoint of the service needs a bearer token.
 * Webhooks are exempt (the service is the caller there).
 */
export default function Operation401({ status = '401' } = {}) {
  return onPathOperations((operation, ctx, method, location) => {
    if (!Object.prototype.hasOwnProperty.call(operation.responses ?? {}, status)) {
      ctx.report({
        message: `${method.toUpperCase()} ${operation.operationId ?? ''} must declare a ${status} response.`,
        location: location.child(['responses']).key(),
      });
    }
  });
}
