// Shared helpers of the house rules. Redocly hands a visitor the node it visits resolved, but the node's
// children are raw: a `$ref` inside a multi-file description must be resolved against the file it sits in.

/**
 * Follows a chain of `$ref`s from `node`, resolving each against the file of the previous one.
 * @returns {{ node: any, location: any, refName: string | null }} the target, its location and the file or
 *   component name of the last `$ref` followed (`ErrorEnvelope` for `../schemas/ErrorEnvelope.yaml`).
 */
export function deref(ctx, node, location) {
  let current = node;
  let where = location;
  let refName = null;
  for (let hops = 0; hops < 32 && current && typeof current === 'object' && typeof current.$ref === 'string'; hops++) {
    refName = lastSegment(current.$ref);
    const resolved = ctx.resolve(current, where?.source?.absoluteRef);
    if (resolved.node === undefined) break;
    current = resolved.node;
    where = resolved.location;
  }
  return { node: current, location: where, refName };
}

/** `../schemas/ErrorEnvelope.yaml` and `#/components/schemas/ErrorEnvelope` both name `ErrorEnvelope`. */
function lastSegment(ref) {
  const pointer = ref.includes('#') ? ref.slice(ref.indexOf('#') + 1) : ref;
  const segment = pointer.split('/').filter(Boolean).pop() ?? '';
  return decodeURIComponent(segment).replace(/\.(ya?ml|json)$/, '');
}

/** Status codes of error responses: 4xx, 5xx and their `4XX`/`5XX` ranges. */
export function isErrorStatus(code) {
  return /^[45]([0-9]{2}|XX)$/i.test(String(code));
}

/** Status codes of success responses. */
export function isSuccessStatus(code) {
  return /^2([0-9]{2}|XX)$/i.test(String(code));
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Calls `visit(operation, ctx, method, operationLocation, pathItem)` for each operation of a path item reached
 * from `paths` (a nested visitor): webhooks are receiver endpoints and are left alone by the rules that use this.
 */
export function onPathOperations(visit) {
  return {
    Paths: {
      PathItem: {
        enter(pathItem, ctx) {
          for (const method of HTTP_METHODS) {
            const operation = pathItem[method];
            if (operation && typeof operation === 'object') {
              visit(operation, ctx, method, ctx.location.child([method]), pathItem);
            }
          }
        },
      },
    },
  };
}

/**
 * Each response of an operation, resolved: `{ code, response, where, at }`, where `where` is the location the
 * response was read from (to resolve its own `$ref`s) and `at` the place to report: the operation's response key.
 */
export function* responsesOf(operation, ctx, operationLocation) {
  const responses = operation.responses ?? {};
  for (const code of Object.keys(responses)) {
    const at = operationLocation.child(['responses', code]);
    const { node, location } = deref(ctx, responses[code], at);
    yield { code, response: node ?? {}, where: location ?? at, at };
  }
}
