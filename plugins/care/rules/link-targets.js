import { deref, HTTP_METHODS, responsesOf } from '../resolve.js';

/**
 * Every OpenAPI `link` of a response can be followed: it names an operation of the description by `operationId`,
 * gives every path parameter of that operation and only parameters it declares, and each value is a runtime
 * expression that resolves: `$response.body#/…` a place of the response's JSON schema, `$request.path.x` a path
 * parameter of the operation that answers. Stateful tools (and test/sandbox.fuzz.test.ts) walk these links.
 */
export default function LinkTargets() {
  const operations = new Map(); // operationId -> Set of `in:name`
  const links = []; // { name, link, at }
  return {
    Root: {
      leave(_root, ctx) {
        for (const { name, link, at } of links) {
          if (typeof link.operationId !== 'string') {
            ctx.report({ message: `Link \`${name}\` must name its target by operationId.`, location: at });
            continue;
          }
          const target = operations.get(link.operationId);
          if (!target) {
            ctx.report({ message: `Link \`${name}\` names operationId \`${link.operationId}\`, which no operation has.`, location: at.child(['operationId']) });
            continue;
          }
          const given = Object.keys(link.parameters ?? {});
          for (const key of given) {
            const qualified = /^(path|query|header|cookie)\.(.+)$/.exec(key);
            const known = qualified ? target.parameters.has(`${qualified[1]}:${qualified[2]}`) : [...target.parameters].some((p) => p.endsWith(`:${key}`));
            if (!known) ctx.report({ message: `Link \`${name}\` gives \`${key}\`, which ${link.operationId} does not declare.`, location: at.child(['parameters', key]) });
          }
          for (const parameter of target.parameters) {
            const [where, bare] = parameter.split(':');
            if (where === 'path' && !given.includes(bare) && !given.includes(`path.${bare}`)) {
              ctx.report({ message: `Link \`${name}\` to ${link.operationId} must give its path parameter \`${bare}\`.`, location: at.child(['parameters']) });
            }
          }
        }
      },
    },
    Paths: {
      PathItem: {
        enter(pathItem, ctx) {
          const shared = resolvedParameters(ctx, pathItem.parameters, ctx.location.child(['parameters']));
          for (const method of HTTP_METHODS) {
            const operation = pathItem[method];
            if (!operation || typeof operation !== 'object') continue;
            const operationAt = ctx.location.child([method]);
            const own = resolvedParameters(ctx, operation.parameters, operationAt.child(['parameters']));
            const parameters = new Set([...shared, ...own]);
            if (typeof operation.operationId === 'string') operations.set(operation.operationId, { parameters });
            for (const { response, where, at } of responsesOf(operation, ctx, operationAt)) {
              for (const name of Object.keys(response.links ?? {})) {
                const { node: link } = deref(ctx, response.links[name], where.child(['links', name]));
                const reportAt = at.child(['links', name]);
                if (!link || typeof link !== 'object') continue;
                links.push({ name, link, at: reportAt });
                for (const [key, value] of Object.entries(link.parameters ?? {})) {
                  const problem = expressionProblem(ctx, value, response, where, parameters);
                  if (problem) ctx.report({ message: `Link \`${name}\`, parameter \`${key}\`: ${problem}`, location: reportAt.child(['parameters', key]) });
                }
                if (link.requestBody !== undefined) {
                  for (const [key, value] of Object.entries(typeof link.requestBody === 'object' ? link.requestBody : { '': link.requestBody })) {
                    const problem = expressionProblem(ctx, value, response, where, parameters);
                    if (problem) ctx.report({ message: `Link \`${name}\`, requestBody${key ? ` \`${key}\`` : ''}: ${problem}`, location: reportAt.child(['requestBody']) });
                  }
                }
              }
            }
          }
        },
      },
    },
  };
}

/** `in:name` of each parameter of a list, resolved. */
function resolvedParameters(ctx, list, location) {
  const found = [];
  (Array.isArray(list) ? list : []).forEach((raw, index) => {
    const { node } = deref(ctx, raw, location.child([index]));
    if (node && typeof node.name === 'string') found.push(`${node.in}:${node.name}`);
  });
  return found;
}

/** Why a link value cannot be evaluated, or undefined: constants pass, expressions must resolve. */
function expressionProblem(ctx, value, response, where, parameters) {
  if (typeof value !== 'string' || !value.startsWith('$')) return undefined;
  let match = /^\$request\.path\.([A-Za-z0-9_-]+)$/.exec(value);
  if (match) return parameters.has(`path:${match[1]}`) ? undefined : `\`${value}\` names no path parameter of the operation that answers.`;
  match = /^\$response\.body#(\/.*)?$/.exec(value);
  if (!match) return `\`${value}\` is not a runtime expression this rule can check ($response.body#/…, $request.path.…).`;
  const media = response.content?.['application/json'];
  if (!media?.schema) return `\`${value}\` reads a JSON body, and the response declares none.`;
  const segments = (match[1] ?? '').split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let { node, location } = deref(ctx, media.schema, where.child(['content', 'application/json', 'schema']));
  for (const segment of segments) {
    const next = schemaChild(ctx, node, location, segment);
    if (!next) return `\`${value}\`: the response schema has no \`${segment}\` there.`;
    ({ node, location } = next);
  }
  return undefined;
}

/** The schema of property `segment` (or of an item, for a number) below `node`, through `$ref`s and allOf. */
function schemaChild(ctx, node, location, segment) {
  if (!node || typeof node !== 'object') return undefined;
  if (node.properties && Object.prototype.hasOwnProperty.call(node.properties, segment)) {
    return deref(ctx, node.properties[segment], location.child(['properties', segment]));
  }
  if (/^[0-9]+$/.test(segment) && node.items) return deref(ctx, node.items, location.child(['items']));
  for (const [index, member] of (node.allOf ?? []).entries()) {
    const { node: resolved, location: at } = deref(ctx, member, location.child(['allOf', index]));
    const found = schemaChild(ctx, resolved, at, segment);
    if (found) return found;
  }
  return undefined;
}
