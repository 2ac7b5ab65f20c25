import { deref, isErrorStatus, onPathOperations, responsesOf } from '../resolve.js';

/**
 * Every 4xx/5xx response of an operation under `paths` has a body, and each of its media types uses the error
 * envelope schema (seed section 7: `meta` + `errors[]`). Webhook responses are the receiver's, not ours.
 */
export default function ErrorEnvelope({ schema = 'ErrorEnvelope' } = {}) {
  return onPathOperations((operation, ctx, method, location) => {
    for (const { code, response, where, at } of responsesOf(operation, ctx, location)) {
      if (!isErrorStatus(code)) continue;
      const content = response.content ?? {};
      const mediaTypes = Object.keys(content);
      if (mediaTypes.length === 0) {
        ctx.report({ message: `Error response ${code} of ${operation.operationId ?? method} must have a body using \`${schema}\`.`, location: at });
        continue;
      }
      for (const mediaType of mediaTypes) {
        const raw = content[mediaType]?.schema;
        const { node, refName } = deref(ctx, raw, where.child(['content', mediaType, 'schema']));
        if (refName !== schema && node?.title !== schema) {
          ctx.report({
            message: `Error response ${code} (${mediaType}) of ${operation.operationId ?? method} must use the \`${schema}\` schema.`,
            location: at,
          });
        }
      }
    }
  });
}
