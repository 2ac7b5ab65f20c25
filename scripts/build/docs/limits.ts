// The docs' *Limits* section: the root `x-care-limits` of the description (D-100) as a table, read through src/spec
// so that the docs show exactly the values the sandbox, the mocks and the conformance suite read.
import { byteSize, type CareSpec } from '../../../src/spec/index.ts';

export const LIMITS_TAG = 'Limits';

const bytes = (value: number) => `${value} bytes (${byteSize(value)})`;

/** Markdown: one row per limit, with where it is declared and what exceeding it answers. */
export function limitsMarkdown(spec: CareSpec): string {
  const limits = spec.limits;
  const rows: Array<[string, string, string]> = [
    ['`requestHeadBytes`', bytes(limits.requestHeadBytes), 'Request line and header fields together; it bounds the URL, so the query string and the number of its parameters. More: 431 `header_too_large`.'],
    ['`jsonDepth`', `${limits.jsonDepth} levels`, 'How deep a JSON body may nest, objects and arrays counted together. Deeper: 400 `too_deep` (decision D-87).'],
    ...Object.entries(limits.bodyBytes).map(([type, value]): [string, string, string] => [
      `\`bodyBytes.${type}\``,
      bytes(value),
      type === 'application/x-www-form-urlencoded'
        ? 'A form body of the token endpoint (`tokenUrl` of `apiKeyExchange`). More: 400 `invalid_request`.'
        : `A whole \`${type}\` request body. More: 413 \`payload_too_large\`.`,
    ]),
    ['`multipart.fileBytes`', bytes(limits.multipart.fileBytes), 'The content of an upload\'s `file` part: exactly this many bytes are accepted, one more is 413 (decision D-10).'],
    ['`multipart.parts`', `${limits.multipart.parts} parts`, 'Parts of an upload read at most; a body whose `file` part is not among them is 400 `value_error` (decision D-93).'],
    ['`multipart.fileNameCodePoints`', `${limits.multipart.fileNameCodePoints} code points`, 'A file name is cut after this many code points, never inside a surrogate pair (decision D-93).'],
  ];
  return [
    'The limits the service enforces on a request as a whole, declared once in the description\'s root extension `x-care-limits` (decision D-100). Limits of single values are in the schemas (`maxLength`, `maxItems`, `minimum`, `maximum`).',
    '',
    '| Limit | Value | Applies to |',
    '|---|---|---|',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}
