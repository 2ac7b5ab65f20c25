// The *Filtering* guide of the docs site, made from the description: the list rules and the coercion table of
// `info.description` (moved here, so each section appears once), every operator of `FilterOperator`, worked
// examples per value type from the lists' own fields, and sorting and paging from the lists' declarations.
import type { CareSpec, ListSpec, OperationSpec, ValueType } from '../../../src/spec/index.ts';
import { arityText, declaredExampleQuery, exampleQuery, markdownText } from './operators.ts';

export const FILTERING_TAG = 'Filtering';

/** The `## heading` sections of info.description that the guide takes over, by their heading's first words. */
const MOVED_SECTIONS = [/^Lists\b/, /^Input coercion\b/];

/** Splits `## ` sections off a markdown text: [rest, taken sections]. */
export function takeSections(markdown: string, headings: RegExp[]): [string, Map<RegExp, string>] {
  const parts = markdown.split(/^(?=## )/m);
  const taken = new Map<RegExp, string>();
  const kept: string[] = [];
  for (const part of parts) {
    const heading = /^## (.*)$/m.exec(part)?.[1];
    const match = heading !== undefined && part.startsWith('## ') ? headings.find((h) => h.test(heading)) : undefined;
    if (match) taken.set(match, part.replace(/^## .*\n/, '').trim());
    else kept.push(part);
  }
  return [kept.join(''), taken];
}

/** One worked example: the request line, run as written against a sandbox by test/docs-samples.test.ts. */
export interface WorkedExample {
  operationId: string;
  path: string;
  query: string;
  what: string;
}

/**
 * Worked examples per value type: every operator of the first list field of the type, each shown on the first field
 * of that type (the lists in order) whose examples give it, so it finds something in the seeded data (D-119).
 */
export function workedExamples(spec: CareSpec): Map<ValueType, WorkedExample[]> {
  const lists = spec.operations.filter((op): op is OperationSpec & { list: ListSpec } => !!op.list && op.environments.includes('sandbox'));
  const examples = new Map<ValueType, WorkedExample[]>();
  for (const op of lists) {
    for (const field of Object.values(op.list.filterFields)) {
      if (examples.has(field.type)) continue;
      examples.set(
        field.type,
        field.operators.map((operator) => {
          const declared = lists.flatMap((other) =>
            Object.values(other.list.filterFields)
              .filter((f) => f.type === field.type && f.operators.includes(operator))
              .map((f) => ({ other, query: declaredExampleQuery(spec, other.list, f.name, operator) })),
          ).find((candidate) => candidate.query);
          return {
            operationId: (declared?.other ?? op).operationId,
            path: withExamplePath(spec, declared?.other ?? op),
            query: declared?.query ?? exampleQuery(spec, op.list, field.name, field.type, operator),
            what: spec.operators[operator].summary,
          };
        }),
      );
    }
  }
  return examples;
}

/** The operation's path with its parameters' examples. */
function withExamplePath(spec: CareSpec, op: OperationSpec): string {
  return op.path.replace(/\{([^}]+)\}/g, (whole, name) => {
    const parameter = Object.values<any>(spec.document.components.parameters ?? {}).find((p) => p.in === 'path' && p.name === name);
    return parameter?.example !== undefined ? String(parameter.example) : whole;
  });
}

/** Sorting and paging shown on the first list: a descending sort, a second key, page 2 of 20. */
export function pagingExample(spec: CareSpec): WorkedExample | undefined {
  const op = spec.operations.find((o) => o.list && o.list.sortFields.length > 1 && o.environments.includes('sandbox'));
  if (!op?.list) return undefined;
  const [first, second] = op.list.sortFields;
  return { operationId: op.operationId, path: withExamplePath(spec, op), query: `sort=-${first},${second}&page[number]=2&page[size]=2`, what: `sorted by ${first} descending, then ${second}; the second page of 2` };
}

export function filteringGuide(spec: CareSpec, moved: Map<RegExp, string>): string {
  const lines: string[] = [];
  const lists = moved.get(MOVED_SECTIONS[0]);
  lines.push('Every list operation takes `page`, `sort` and `filter` in the query. This guide shows how they are written; each list\'s `filter` parameter names the fields it takes and what each operator does there. Every example below is a request the sandbox answers as written (add the base address of an environment and a bearer token).', '');
  if (lists) lines.push('## Paging and sorting', '', lists, '');
  const paging = pagingExample(spec);
  if (paging) lines.push(`Example (${paging.what}): \`GET ${paging.path}?${paging.query}\``, '');
  lines.push('## The operators', '', '| Operator | Takes | What it does | Complement of |', '|---|---|---|---|');
  for (const op of Object.values(spec.operators)) {
    lines.push(`| \`${op.name}\` | ${arityText(op.arity)} | ${markdownText(op.summary).replace(/\|/g, '\\|')} | ${op.negationOf ? `\`${op.negationOf}\`` : ''} |`);
  }
  lines.push('', 'A complement selects exactly the items its positive operator does not; for an operator that takes a value, items whose value is null are among them, so `eq` and `ne` split any list in two.', '');
  lines.push('## Worked examples by value type', '');
  for (const [type, examples] of workedExamples(spec)) {
    lines.push(`### ${type} fields`, '');
    for (const example of examples) lines.push(`- \`GET ${example.path}?${example.query}\`: ${markdownText(example.what)}`);
    lines.push('');
  }
  const coercion = moved.get(MOVED_SECTIONS[1]);
  if (coercion) lines.push('## Input coercion', '', coercion, '');
  return lines.join('\n').trim();
}

/** The info description without the sections the guide takes, and the guide. */
export function splitGuide(spec: CareSpec, infoDescription: string): { info: string; guide: string } {
  const [rest, moved] = takeSections(infoDescription, MOVED_SECTIONS);
  const pointer = '## Lists and filtering\nPaging, sorting, every filter operator with examples, and the coercion of input values are in the *Filtering* guide.\n\n';
  const info = moved.size ? rest.replace(/(?=^## Authentication)/m, pointer) : rest;
  return { info, guide: filteringGuide(spec, moved) };
}
