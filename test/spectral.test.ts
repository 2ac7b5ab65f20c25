// The OWASP API Security ruleset in the build (D-104): the root .spectral.yaml finds no error in the complete bundle,
// and it does find the errors it exists for (an unbounded string, a 2xx without rate-limit headers) in a description
// that has them, so the build's lint step (scripts/build/spectral.ts) would fail on one.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spectralLint } from '../scripts/build/spectral.ts';
import { bundlePath, repoRoot } from '../src/spec/index.ts';

describe('the OWASP ruleset of .spectral.yaml (D-104)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'care-spectral-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds no error in generated/care-api.yaml', async () => {
    const findings = await spectralLint(bundlePath(), repoRoot);
    expect(findings.filter((f) => f.severity === 0).map((f) => `${f.code} ${f.path.join('.')}`)).toEqual([]);
  }, 120_000);

  it('finds an unbounded string and a 2xx without rate-limit headers as errors', async () => {
    const file = join(dir, 'unbounded.json');
    writeFileSync(file, JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'x', version: '1.0.0', description: 'x' },
      servers: [{ url: 'https://api.example.com', 'x-internal': false }],
      paths: {
        '/things': {
          get: {
            operationId: 'listThings',
            responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'string' } } } } },
          },
        },
      },
    }));
    const errors = (await spectralLint(file, repoRoot)).filter((f) => f.severity === 0).map((f) => f.code);
    expect(errors).toContain('owasp:api4:2023-string-limit');
    expect(errors).toContain('owasp:api4:2023-rate-limit');
  }, 120_000);
});
