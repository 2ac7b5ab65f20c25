// What the docs site publishes, read from the description copy it ships (generated/docs/description.js), no browser:
// every operator a list offers is explained on that list's filter with its fields, arity and an example; the
// contract's decisions only; no repository path in any text; each sandbox-only operation shows `X-CareAPI-Env:
// Sandbox`; the list rules and the coercion table appear once, in the Filtering guide (issue 37).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec, repoRoot } from '../src/spec/index.ts';
import { REPOSITORY_PATH } from '../scripts/build/docs/public.ts';

const spec = loadSpec();
const text = readFileSync(join(repoRoot, 'generated/docs/description.js'), 'utf8');
const docs = JSON.parse(text.slice(text.indexOf('=') + 1).trim().replace(/;$/, ''));
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** The docs copy's operation of an operationId. */
function docsOperation(operationId: string): any {
  for (const item of Object.values<any>(docs.paths)) for (const m of METHODS) if (item?.[m]?.operationId === operationId) return item[m];
  throw new Error(operationId);
}

/** Markdown as a reader sees it: `\*` is `*`. */
const plain = (markdown: string) => markdown.replace(/\\([*_])/g, '$1');

describe('operators where they are used', () => {
  const lists = spec.operations.filter((op) => op.list);

  it.each(lists.map((op) => [op.operationId, op]))('%s: its filter explains every operator of every field', (_id, op) => {
    const filter = docsOperation(op.operationId).parameters.find((p: any) => p.name === 'filter');
    const description = plain(filter.description);
    for (const field of Object.values(op.list!.filterFields)) {
      for (const operator of field.operators) {
        const declared = spec.operators[operator];
        const bullet = new RegExp(`^- \\*\\*\`${operator}\`\\*\\*: (.*)$`, 'm').exec(description);
        expect(bullet, `${field.name} ${operator}`).not.toBeNull();
        expect(bullet![1]).toContain(declared.summary);
        expect(bullet![1]).toMatch(/Takes (no value|one value|the name of another field|one or more comma-separated values|exactly two comma-separated values), e\.g\. `filter\[\w+\]\[\w+\]/);
        // the field is listed under the operator, with its type
        const block = description.slice(bullet!.index).split(/\n- /)[0];
        expect(block, `${field.name} ${operator}`).toMatch(new RegExp(`  - ${field.type}: .*\`${field.name}\``));
      }
    }
  });

  it('the fine print is there: wildcards without escape, RE2 and its limits, sameas field names, inclusive ranges, complements', () => {
    const description = plain(docsOperation('listCases').parameters.find((p: any) => p.name === 'filter').description);
    expect(description).toMatch(/`like`\*\*: .*no escape/);
    expect(description).toMatch(/`match`\*\*: .*RE2.*1000 compiled instructions/);
    expect(description).toMatch(/`sameas`\*\*[\s\S]*?It names another of `id`, `contract`/);
    expect(description).toMatch(/`between`\*\*: within the inclusive range/);
    expect(description).toMatch(/`notNull`\*\*: .*exact complement of `null`/);
    expect(description).toMatch(/`ne`\*\*: .*those whose value is null included/);
    expect(description).toMatch(/string: A string value, compared case-sensitively/);
  });

  it('each operator of the field filter schemas says what it does, with an example', () => {
    for (const [name, schema] of Object.entries<any>(docs.components.schemas)) {
      if (!schema?.['x-care-value-type']) continue;
      for (const [operator, property] of Object.entries<any>(schema.properties)) {
        expect(plain(property.description), `${name}.${operator}`).toContain(spec.operators[operator].summary);
        expect(property.description, `${name}.${operator}`).toMatch(/Example: `filter\[field\]\[\w+\]/);
      }
    }
  });
});

describe('public pages', () => {
  const decisions = readFileSync(join(repoRoot, 'docs/decisions.md'), 'utf8');
  const cut = decisions.indexOf('## Tooling choices');
  const ids = (markdown: string) => [...markdown.matchAll(/^### (D-\d+)/gm)].map((m) => m[1]);

  it('the Decisions page holds every decision of the contract and none of the tooling', () => {
    const published = docs.tags.find((t: any) => t.name === 'Decisions').description;
    expect(cut).toBeGreaterThan(0);
    expect(ids(published)).toEqual(ids(decisions.slice(0, cut)));
    // a tooling decision may be cited by id, never published as a section
    expect(ids(decisions.slice(cut)).filter((id) => published.includes(`### ${id}`))).toEqual([]);
    expect(ids(decisions.slice(cut)).length).toBeGreaterThan(10);
    expect(published).not.toMatch(/Tooling choices/);
  });

  it('no text of the site names a path of the repository', () => {
    const found: string[] = [];
    (function visit(node: any, at: string) {
      if (typeof node === 'string') {
        if (REPOSITORY_PATH.test(node)) found.push(`${at}: ${REPOSITORY_PATH.exec(node)![0]}`);
      } else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) if (key !== 'x-codeSamples') visit(value, `${at}/${key}`);
      }
    })(docs, '#');
    expect(found).toEqual([]);
  });

  it('each sandbox-only operation shows X-CareAPI-Env: Sandbox, the others Production', () => {
    let sandboxOnly = 0;
    for (const item of Object.values<any>(docs.paths)) {
      const only = item['x-care-environments']?.length === 1 ? item['x-care-environments'][0] : null;
      for (const m of METHODS) {
        for (const response of Object.values<any>(item[m]?.responses ?? {})) {
          const resolved = response.$ref ? docs.components.responses[response.$ref.split('/').pop()] : response;
          const header = resolved?.headers?.['X-CareAPI-Env'];
          if (!header) continue;
          const example = header.$ref ? docs.components.headers['X-CareAPI-Env'].example : header.example;
          expect(example, `${item[m].operationId}`).toBe(only === 'sandbox' ? 'Sandbox' : 'Production');
          if (only === 'sandbox') sandboxOnly++;
        }
      }
    }
    expect(sandboxOnly).toBeGreaterThan(5);
  });

  it('the list rules and the coercion table appear once, in the Filtering guide', () => {
    const guide = docs.tags.find((t: any) => t.name === 'Filtering').description;
    expect(guide).toMatch(/^## Input coercion$/m);
    expect(guide).toMatch(/\| datetime \|/);
    expect(guide).toMatch(/^## Paging and sorting$/m);
    expect(docs.info.description).not.toMatch(/^## Input coercion$/m);
    expect(docs.info.description).not.toMatch(/\| datetime \|/);
    expect(docs['x-tagGroups'][0]).toEqual({ name: 'Guides', tags: ['Getting started', 'Filtering', 'Limits'] });
  });

  it('the Limits section renders every value of x-care-limits (D-100)', () => {
    const section = docs.tags.find((t: any) => t.name === 'Limits').description as string;
    const limits = spec.limits;
    const values = [limits.requestHeadBytes, limits.jsonDepth, ...Object.values(limits.bodyBytes), limits.multipart.fileBytes, limits.multipart.parts, limits.multipart.fileNameCodePoints];
    for (const value of values) expect(section).toContain(String(value));
    for (const name of ['requestHeadBytes', 'jsonDepth', 'bodyBytes.application/json', 'multipart.fileBytes', 'multipart.parts', 'multipart.fileNameCodePoints']) expect(section).toContain(`\`${name}\``);
  });
});
