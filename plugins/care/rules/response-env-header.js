import { onPathOperations, responsesOf } from '../resolve.js';

/**
 * Every response of every operation under `paths` declares the environment header (seed section 1: "Every
 * response, including every error response, carries the header X-CareAPI-Env"). Webhooks are exempt: their
 * responses come from the subscriber's receiver, not from the service.
 */
export default function ResponseEnvHeader({ header = 'X-CareAPI-Env' } = {}) {
  const wanted = header.toLowerCase();
  return onPathOperations((operation, ctx, method, location) => {
    for (const { code, response, at } of responsesOf(operation, ctx, location)) {
      const names = Object.keys(response.headers ?? {}).map((name) => name.toLowerCase());
      if (!names.includes(wanted)) {
        ctx.report({
          message: `Response ${code} of ${method.toUpperCase()} ${operation.operationId ?? ''} must declare the \`${header}\` header.`,
          location: at,
        });
      }
    }
  });
}
