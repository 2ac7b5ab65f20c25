import { deref } from '../resolve.js';

/**
 * Every property of every schema has a description and an example, so the docs and the mocks never show a bare
 * field. A property that is only a `$ref` counts through its target (keys beside the `$ref` count too). An
 * example also counts when the value is assembled from parts that have one: an object whose properties are
 * declared (each is checked where it is declared), an array whose items have an example, a composition whose
 * members have one, a `const` or a `type: "null"` (one possible value). A free-form object or a bare scalar needs
 * its own example.
 */
export default function PropertyDescriptionExample() {
  return {
    Schema: {
      enter(schema, ctx) {
        const properties = schema.properties;
        if (!properties || typeof properties !== 'object') return;
        for (const name of Object.keys(properties)) {
          const raw = properties[name];
          const { node: merged, location } = withTarget(ctx, raw, ctx.location);
          const missing = [];
          if (typeof merged.description !== 'string' || merged.description.trim() === '') missing.push('a description');
          if (!hasExample(ctx, merged, location, new Set())) missing.push('an example');
          if (missing.length > 0) {
            ctx.report({
              message: `Property \`${name}\` must have ${missing.join(' and ')}.`,
              location: ctx.location.child(['properties', name]).key(),
            });
          }
        }
      },
    },
  };
}

/** The schema behind `raw` with the keys written beside its `$ref` laid over it. */
function withTarget(ctx, raw, location) {
  if (!raw || typeof raw !== 'object') return { node: {}, location };
  const target = deref(ctx, raw, location);
  const { $ref, ...siblings } = raw;
  return { node: { ...(target.node ?? {}), ...siblings }, location: target.location ?? location };
}

function hasExample(ctx, schema, location, seen) {
  if (!schema || typeof schema !== 'object') return false;
  if (seen.has(schema)) return true; // a cycle: the outer level decides
  seen.add(schema);
  if ('example' in schema || (Array.isArray(schema.examples) && schema.examples.length > 0)) return true;
  if ('const' in schema || schema.type === 'null') return true;
  const part = (raw) => {
    const { node, location: where } = withTarget(ctx, raw, location);
    return hasExample(ctx, node, where, seen);
  };
  if (schema.properties && Object.keys(schema.properties).length > 0) return true;
  if (schema.items && typeof schema.items === 'object') return part(schema.items);
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return schema.allOf.some((member) => part(member));
  for (const key of ['oneOf', 'anyOf']) {
    if (Array.isArray(schema[key]) && schema[key].length > 0) return schema[key].every((member) => part(member));
  }
  return false;
}
