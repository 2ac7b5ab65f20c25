// The three committed bundles are valid OpenAPI (swagger-parser) and lint clean with redocly.yaml's rules.
import { resolve } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../scripts/build/context.ts';
import { formatProblems, lint } from '../scripts/build/redocly.ts';

const BUNDLES = ['generated/care-api.yaml', 'generated/care-api.production.yaml', 'generated/care-api.sandbox.yaml'];

describe('generated bundles', () => {
  it.each(BUNDLES)('%s validates with swagger-parser', async (file) => {
    // validate() dereferences a copy it reads itself; it checks the structure against the OpenAPI 3.1 schema.
    const api: any = await SwaggerParser.validate(resolve(repoRoot, file));
    expect(api.openapi).toBe('3.1.0');
    expect(Object.keys(api.paths).length).toBeGreaterThan(10);
  });

  it('lint clean with redocly.yaml (recommended-strict and the house rules)', async () => {
    const problems = await lint(BUNDLES, repoRoot);
    expect(problems, formatProblems(problems)).toEqual([]);
  });
});
