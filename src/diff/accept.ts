// What the differ agrees to compare: an OpenAPI 3.1 description. Anything else (a Swagger 2.0 file, an OpenAPI 3.0
// one, a YAML file that is no description at all) is refused with a message that says what it is, so it is never
// reported as dozens of "breaking changes" (npm run diff exits 2 for it, never 1).

export class NotComparable extends Error {}

/** Throws NotComparable unless `document` is an OpenAPI 3.1 description; `label` names it in the message. */
export function assertOpenApi31(document: unknown, label: string): void {
  const refuse = (what: string) => {
    throw new NotComparable(`${label}: ${what}; npm run diff compares OpenAPI 3.1 descriptions only`);
  };
  if (document === null || typeof document !== 'object' || Array.isArray(document)) refuse(`not an OpenAPI description (the file holds ${document === null ? 'nothing' : Array.isArray(document) ? 'a list' : `a ${typeof document}`})`);
  const doc = document as Record<string, unknown>;
  if (typeof doc.swagger === 'string') refuse(`a Swagger ${doc.swagger} description, not OpenAPI 3.1`);
  if (doc.openapi === undefined) refuse('not an OpenAPI description (no `openapi` field)');
  const version = String(doc.openapi);
  if (!/^3\.1\.\d+$/.test(version)) refuse(`an OpenAPI ${version} description, not OpenAPI 3.1`);
  if (!doc.info || typeof doc.info !== 'object') refuse('not a complete OpenAPI description (no `info` object)');
  if (!['paths', 'webhooks', 'components'].some((key) => doc[key] && typeof doc[key] === 'object')) refuse('not a complete OpenAPI description (no `paths`, `webhooks` or `components`)');
}
