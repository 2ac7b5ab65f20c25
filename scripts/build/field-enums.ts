// Enums of field names kept in one place (decision D-20): a string schema marked `x-care-enum-from: <Schema>` gets
// `enum` set to the property names of that component schema, in the bundle. The names are written once, as the
// schema's properties; no second list is kept by hand.

/** Fills every marked schema of a bundled document in place; throws on a marker naming no component schema. */
export function fillFieldEnums(document: any): void {
  const schemas = document?.components?.schemas ?? {};
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const schema = node as Record<string, any>;
    const source = schema['x-care-enum-from'];
    if (typeof source === 'string') {
      const properties = schemas[source]?.properties;
      if (!properties) throw new Error(`x-care-enum-from: no component schema ${source} with properties`);
      schema.enum = Object.keys(properties);
    }
    for (const value of Object.values(schema)) visit(value);
  };
  visit(document);
}
