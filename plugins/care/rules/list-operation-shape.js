import { deref, isSuccessStatus, onPathOperations, responsesOf } from '../resolve.js';

/**
 * A list operation (a GET whose success body has an array `data`) takes the `page`, `sort` and `filter` query
 * parameters and answers `meta.page` (seed section 4: "List endpoints take the pagination, filter and sort
 * parameters of section 1 and return meta.page plus data as an array").
 */
export default function ListOperationShape({ parameters = ['page', 'sort', 'filter'], metaProperty = 'page' } = {}) {
  return onPathOperations((operation, ctx, method, location, pathItem) => {
    if (method !== 'get') return;
    const list = findListBody(operation, ctx, location);
    if (!list) return;

    const declared = new Set();
    const sources = [
      ...(pathItem.parameters ?? []).map((p, i) => [p, ctx.location.child(['parameters', i])]),
      ...(operation.parameters ?? []).map((p, i) => [p, location.child(['parameters', i])]),
    ];
    for (const [raw, at] of sources) {
      const { node } = deref(ctx, raw, at);
      if (node?.in === 'query') declared.add(node.name);
    }
    for (const name of parameters) {
      if (!declared.has(name)) {
        ctx.report({
          message: `List operation ${operation.operationId ?? ''} must take the \`${name}\` query parameter.`,
          location: location.child(['parameters']).key(),
        });
      }
    }

    const meta = deref(ctx, list.body.properties?.meta, list.where.child(['properties', 'meta']));
    const page = meta.node?.properties?.[metaProperty];
    if (!page || !(meta.node.required ?? []).includes(metaProperty)) {
      ctx.report({
        message: `List operation ${operation.operationId ?? ''} must answer a required \`meta.${metaProperty}\` (ListMeta).`,
        location: list.at,
      });
    }
  });
}

/** The JSON success body whose `data` is an array, if the operation has one. */
function findListBody(operation, ctx, location) {
  for (const { code, response, where, at } of responsesOf(operation, ctx, location)) {
    if (!isSuccessStatus(code)) continue;
    for (const [mediaType, media] of Object.entries(response.content ?? {})) {
      if (!/json/.test(mediaType)) continue;
      const body = deref(ctx, media?.schema, where.child(['content', mediaType, 'schema']));
      const data = deref(ctx, body.node?.properties?.data, (body.location ?? where).child(['properties', 'data']));
      if (isArraySchema(data.node)) return { body: body.node, where: body.location ?? where, at };
    }
  }
  return null;
}

function isArraySchema(schema) {
  if (!schema || typeof schema !== 'object') return false;
  return schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array'));
}
