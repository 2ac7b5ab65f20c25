// Redoc (the docs site) does not render OpenAPI `links`; each response that has some gets them written at the end
// of its description instead: the next requests its answer feeds, with a jump to each target operation and the
// values the link passes (issue 38). Only the docs document is changed; the bundles keep the links as they are.
import { deref } from '../../../src/spec/refs.ts';

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** `$response.body#/data/id` → `data.id` of the answer; `$request.path.caseId` → the request's `caseId`. */
function readable(expression: unknown): string {
  const text = String(expression);
  const body = /^\$response\.body#\/(.*)$/.exec(text);
  if (body) return `\`${body[1].split('/').join('.')}\` of this answer`;
  const path = /^\$request\.path\.(.+)$/.exec(text);
  if (path) return `this request's \`${path[1]}\``;
  return `\`${text}\``;
}

/** The Markdown list of a response's links. */
export function linksMarkdown(document: any, links: Record<string, any>): string {
  const lines = Object.entries(links).map(([name, raw]) => {
    const link = deref(document, raw) ?? {};
    const target = String(link.operationId ?? name);
    const values = Object.entries<any>(link.parameters ?? {}).map(([parameter, value]) => `\`${parameter}\` = ${readable(value)}`).join(', ');
    return `- [${target}](#operation/${target})${values ? ` with ${values}` : ''}${link.description ? `: ${String(link.description).replace(/\s+/g, ' ').trim()}` : ''}`;
  });
  return `**Links**: the next requests this answer feeds (OpenAPI \`links\`).\n\n${lines.join('\n')}`;
}

/** Writes each response's links into its description, in place (responses shared by reference are copied first). */
export function describeLinks(document: any): void {
  for (const item of Object.values<any>(document.paths ?? {})) {
    for (const method of METHODS) {
      const responses = item?.[method]?.responses;
      if (!responses) continue;
      for (const [status, raw] of Object.entries<any>(responses)) {
        if (raw?.$ref || !raw?.links || Object.keys(raw.links).length === 0) continue;
        const text = String(raw.description ?? '').trimEnd();
        responses[status] = { ...raw, description: `${text}\n\n${linksMarkdown(document, raw.links)}` };
      }
    }
  }
}
