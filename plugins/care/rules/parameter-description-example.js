import { deref } from '../resolve.js';

/**
 * Every parameter has a description and an example (on the parameter, or on its schema), so every query, path
 * and header parameter reads well in the docs and has a value the mocks and tests can send.
 */
export default function ParameterDescriptionExample() {
  return {
    Parameter: {
      enter(parameter, ctx) {
        const missing = [];
        if (typeof parameter.description !== 'string' || parameter.description.trim() === '') missing.push('a description');
        const schema = deref(ctx, parameter.schema, ctx.location).node ?? {};
        const hasExample =
          'example' in parameter ||
          (parameter.examples && Object.keys(parameter.examples).length > 0) ||
          'example' in schema ||
          (Array.isArray(schema.examples) && schema.examples.length > 0);
        if (!hasExample) missing.push('an example');
        if (missing.length > 0) {
          ctx.report({
            message: `Parameter \`${parameter.name ?? '?'}\` must have ${missing.join(' and ')}.`,
            location: ctx.location.child(['name']).key(),
          });
        }
      },
    },
  };
}
