// JSON Schema validation against the bundle's components, for anyone who validates bodies (sandbox, suite, tests).
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { CareSpec } from './types.ts';

// ajv-formats is CommonJS: Node gives the function itself as default, TypeScript sees a namespace.
const addFormats: (ajv: Ajv2020) => Ajv2020 = (addFormatsModule as any).default ?? addFormatsModule;

/** The id under which the whole document is added, so `care-api#/components/schemas/Case` resolves. */
export const DOCUMENT_ID = 'care-api';

const ajvs = new WeakMap<CareSpec, Ajv2020>();
const byRef = new WeakMap<Ajv2020, Map<string, ValidateFunction>>();
const byObject = new WeakMap<Ajv2020, WeakMap<object, ValidateFunction>>();

/**
 * An Ajv (JSON Schema 2020-12, as OpenAPI 3.1 uses) holding the whole document: local refs such as
 * `#/components/schemas/Case` work in anything compiled through `validatorFor`. One instance per spec.
 */
export function ajvFor(spec: CareSpec): Ajv2020 {
  let ajv = ajvs.get(spec);
  if (ajv) return ajv;
  // strict: false because OpenAPI adds keywords (example, discriminator, x-*) that are not JSON Schema.
  ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, logger: false });
  addFormats(ajv);
  // OpenAPI formats with no JSON Schema meaning: accept anything rather than fail on an unknown format.
  for (const format of ['binary', 'byte', 'int32', 'int64', 'float', 'double', 'password']) {
    if (!ajv.formats[format]) ajv.addFormat(format, true);
  }
  ajv.addSchema(spec.document, DOCUMENT_ID);
  ajvs.set(spec, ajv);
  byRef.set(ajv, new Map());
  byObject.set(ajv, new WeakMap());
  return ajv;
}

/** Deep copy of a schema with local refs pointed at the added document (`#/x` -> `care-api#/x`). */
function anchorRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(anchorRefs);
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    copy[key] = key === '$ref' && typeof inner === 'string' && inner.startsWith('#') ? DOCUMENT_ID + inner : anchorRefs(inner);
  }
  return copy;
}

/**
 * A compiled validator for a local ref (`#/components/schemas/Case`), a component name (`Case`) or a schema object
 * taken from the document (refs inside it resolve against the document). Compiled once, then cached.
 */
export function validatorFor(spec: CareSpec, schemaOrRef: string | object): ValidateFunction {
  const ajv = ajvFor(spec);
  if (typeof schemaOrRef === 'string') {
    const ref = schemaOrRef.startsWith('#') ? schemaOrRef : `#/components/schemas/${schemaOrRef}`;
    const cached = byRef.get(ajv)!.get(ref);
    if (cached) return cached;
    spec.resolve(ref); // throws a clear error for a ref that does not exist
    const validate = ajv.compile({ $ref: DOCUMENT_ID + ref });
    byRef.get(ajv)!.set(ref, validate);
    return validate;
  }
  const objects = byObject.get(ajv)!;
  const cached = objects.get(schemaOrRef);
  if (cached) return cached;
  const validate = ajv.compile(anchorRefs(schemaOrRef) as object);
  objects.set(schemaOrRef, validate);
  return validate;
}
