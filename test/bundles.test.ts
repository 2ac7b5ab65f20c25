// The three committed bundles are valid OpenAPI (swagger-parser) and lint clean with redocly.yaml's rules; the
// generated types typecheck.
import { resolve } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import ts from 'typescript';
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

  it('care-api.d.ts typechecks on its own, strictly', () => {
    // tsconfig.json has skipLibCheck (which skips every .d.ts), so the generated declarations are checked here.
    const program = ts.createProgram([resolve(repoRoot, 'generated/care-api.d.ts')], {
      noEmit: true,
      strict: true,
      skipLibCheck: false,
      types: [],
      lib: ['lib.es2022.d.ts'],
      target: ts.ScriptTarget.ES2022,
    });
    const messages = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(messages).toEqual([]);
    expect(program.getSourceFile(resolve(repoRoot, 'generated/care-api.d.ts'))?.statements.length).toBeGreaterThan(3);
  });
});
