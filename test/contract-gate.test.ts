// Issue 9, the gate: the description is compared with the last release kept in releases/; a breaking change passes
// only when acknowledged (releases/acknowledged.yaml) AND following D-33 (operation kept deprecated with a sunset
// and Deprecation/Sunset headers, removal after the sunset, or a new path version). `npm run diff` exits 1 otherwise.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { diffDescriptions } from '../src/diff/index.ts';
import { gate, type Acknowledgement } from '../src/diff/gate.ts';
import { baselinePath, latestRelease, readAcknowledgements } from '../scripts/contract/releases.ts';
import { bundlePath, repoRoot } from '../src/spec/index.ts';

const read = (file: string) => parse(readFileSync(file, 'utf8'), { maxAliasCount: -1 });
const release = latestRelease(repoRoot);
const base = read(baselinePath(repoRoot, release!));

/** The edit of the tests: `POST /cases` stops answering `Location` on 201 (breaking for clients that follow it). */
function dropLocation(document: any): any {
  delete document.paths['/cases'].post.responses['201'].headers.Location;
  return document;
}

/** D-33 done right on POST /cases: deprecated, a sunset date, both headers on every response. */
function deprecate(document: any, path: string, method: string, sunset: string): any {
  const operation = document.paths[path][method];
  operation.deprecated = true;
  operation['x-care-deprecated-since'] = '2026-11-01';
  operation['x-care-sunset'] = sunset;
  for (const [status, response] of Object.entries<any>(operation.responses)) {
    const resolved = response.$ref ? structuredClone(document.components.responses[response.$ref.split('/').pop()]) : response;
    resolved.headers = { ...resolved.headers, Deprecation: { description: 'RFC 9745', schema: { type: 'string' } }, Sunset: { description: 'RFC 8594', schema: { type: 'string' } } };
    operation.responses[status] = resolved;
  }
  return document;
}

const ackFor = (document: any, rule: string): Acknowledgement[] =>
  diffDescriptions(base, document).filter((c) => c.rule === rule).map((c) => ({ change: c.id, reason: 'clients never followed Location' }));

describe('the contract gate', () => {
  it('passes for the repository: the description against the last release, with releases/acknowledged.yaml', () => {
    expect(release).toBeDefined();
    const head = read(bundlePath());
    const result = gate(diffDescriptions(base, head), readAcknowledgements(repoRoot), base, head);
    expect(result.verdicts.filter((v) => v.problem)).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('refuses a breaking change that is not acknowledged', () => {
    const head = deprecate(dropLocation(structuredClone(base)), '/cases', 'post', '2027-06-01');
    const result = gate(diffDescriptions(base, head), [], base, head);
    expect(result.ok).toBe(false);
    expect(result.verdicts.map((v) => [v.change.rule, v.problem])).toContainEqual(['response.header.removed', 'not acknowledged in releases/acknowledged.yaml']);
  });

  it('refuses an acknowledged breaking change that does not follow D-33 (operation not deprecated)', () => {
    const head = dropLocation(structuredClone(base));
    const result = gate(diffDescriptions(base, head), ackFor(head, 'response.header.removed'), base, head);
    expect(result.ok).toBe(false);
    expect(result.verdicts[0].problem).toMatch(/must be kept deprecated.*not `deprecated: true`/);
  });

  it('refuses it when a response of the deprecated operation does not declare Sunset', () => {
    const head = deprecate(dropLocation(structuredClone(base)), '/cases', 'post', '2027-06-01');
    delete head.paths['/cases'].post.responses['400'].headers.Sunset;
    const result = gate(diffDescriptions(base, head), ackFor(head, 'response.header.removed'), base, head);
    expect(result.ok).toBe(false);
    expect(result.verdicts[0].problem).toMatch(/response 400 does not declare the Sunset header/);
  });

  it('passes an acknowledged breaking change on an operation kept deprecated with Deprecation and Sunset', () => {
    const head = deprecate(dropLocation(structuredClone(base)), '/cases', 'post', '2027-06-01');
    const changes = diffDescriptions(base, head);
    const result = gate(changes, ackFor(head, 'response.header.removed'), base, head);
    expect(result.verdicts.map((v) => v.problem)).toEqual([undefined]);
    expect(result.verdicts[0].route).toBe('POST /cases kept deprecated until 2027-06-01');
    expect(result.ok).toBe(true);
  });

  it('passes the removal of an operation only after the sunset announced in the base', () => {
    const announced = deprecate(structuredClone(base), '/contracts/{contractId}', 'patch', '2027-06-01');
    const removed = structuredClone(announced);
    delete removed.paths['/contracts/{contractId}'].patch;
    const changes = diffDescriptions(announced, removed);
    const acknowledged = changes.filter((c) => c.classification === 'breaking').map((c) => ({ change: c.id, reason: 'sunset reached' }));
    expect(changes.map((c) => c.rule)).toEqual(['operation.removed']);
    expect(gate(changes, acknowledged, announced, removed, new Date('2027-05-31T00:00:00Z')).ok).toBe(false);
    expect(gate(changes, acknowledged, announced, removed, new Date('2027-06-01T00:00:00Z')).ok).toBe(true);
  });

  it('passes an acknowledged change that codifies a decision the description cites at that place (D-91), and only then', () => {
    const head = structuredClone(base);
    head.components.parameters.CaseSort.schema.uniqueItems = true;
    const changes = diffDescriptions(base, head);
    expect(changes.map((c) => `${c.classification} ${c.rule}`)).toEqual(['breaking request.parameter.uniqueItems.added']);
    const codifies = (decision: string) => changes.map((c) => ({ change: c.id, reason: 'the service refused a repeated sort field already', codifies: decision }));
    const cited = gate(changes, codifies('D-44'), base, head);
    expect(cited.verdicts.map((v) => [v.route, v.problem])).toEqual([['codifies D-44: the service already enforced this rule', undefined]]);
    expect(cited.ok).toBe(true);
    const uncited = gate(changes, codifies('D-12'), base, head);
    expect(uncited.ok).toBe(false);
    expect(uncited.verdicts[0].problem).toMatch(/cites D-12 neither at \/paths\/~1cases\/get\/parameters\/\d+\/schema\/uniqueItems nor above it/);
  });

  it('passes an acknowledged breaking change that comes with a new path version', () => {
    const head = dropLocation(structuredClone(base));
    for (const server of head.servers) server.url = server.url.replace('/care/v0', '/care/v1');
    const changes = diffDescriptions(base, head);
    const acknowledged = changes.filter((c) => c.classification === 'breaking').map((c) => ({ change: c.id, reason: 'v1' }));
    const result = gate(changes, acknowledged, base, head);
    expect(result.ok).toBe(true);
    expect(new Set(result.verdicts.map((v) => v.route))).toEqual(new Set(['new path version v1']));
  });
});

describe('npm run diff (scripts/diff.ts)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'care-gate-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const run = (args: string[]) => new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(process.execPath, ['--import', 'tsx', resolve(repoRoot, 'scripts/diff.ts'), ...args], { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });

  it('reads the openapi/ tree as the build does: it equals its own bundle (build-time enums included)', async () => {
    const same = await run(['--base', bundlePath(), '--head', '.', '--format', 'json']);
    expect(same.code).toBe(0);
    expect(JSON.parse(same.stdout).changes).toEqual([]);
  }, 60_000);

  // Issue 40: exit 1 means only "a breaking change not acknowledged"; what the differ cannot judge is exit 2.
  it('refuses a side that is not an OpenAPI 3.1 description with exit 2 and says what it is', async () => {
    const sides: Array<[string, string, RegExp]> = [
      ['swagger.yaml', stringify({ swagger: '2.0', info: { title: 'Old', version: '1' }, paths: {} }), /a Swagger 2\.0 description, not OpenAPI 3\.1/],
      ['oas30.yaml', stringify({ openapi: '3.0.3', info: { title: 'Old', version: '1' }, paths: {} }), /an OpenAPI 3\.0\.3 description, not OpenAPI 3\.1/],
      ['config.yaml', stringify({ name: 'not a description', port: 8080 }), /not an OpenAPI description \(no `openapi` field\)/],
      ['list.yaml', '- a\n- b\n', /not an OpenAPI description \(the file holds a list\)/],
    ];
    for (const [name, text, message] of sides) {
      const file = join(scratch, name);
      writeFileSync(file, text);
      const asBase = await run(['--base', file, '--head', bundlePath()]);
      expect([asBase.code, asBase.stdout], name).toEqual([2, '']);
      expect(asBase.stderr, name).toMatch(message);
      expect(asBase.stderr, name).toMatch(/compares OpenAPI 3\.1 descriptions only/);
      const asHead = await run(['--base', bundlePath(), '--head', file]);
      expect(asHead.code, name).toBe(2);
      expect(asHead.stderr, name).toMatch(new RegExp(`--head .*${name}`));
    }
  }, 120_000);

  it('exits 2 on an unknown option or a positional argument, with the usage and no stack trace', async () => {
    for (const args of [['--bsae', 'releases'], ['--format'], ['releases/0.1.0']]) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/usage: npm run diff --/);
      expect(result.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
  }, 60_000);

  it('exits 2 when --acknowledged names a file that is not there', async () => {
    const result = await run(['--base', bundlePath(), '--head', bundlePath(), '--acknowledged', join(scratch, 'missing.yaml')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--acknowledged .*missing\.yaml: no such file/);
  }, 60_000);

  it('exits 1 on an unacknowledged breaking change and 0 once it is acknowledged and follows D-33', async () => {
    const headFile = join(scratch, 'head.yaml');
    const head = deprecate(dropLocation(structuredClone(base)), '/cases', 'post', '2027-06-01');
    writeFileSync(headFile, stringify(head));
    const emptyAcks = join(scratch, 'none.yaml');
    writeFileSync(emptyAcks, 'acknowledged: []\n');
    const refused = await run(['--base', baselinePath(repoRoot, release!), '--head', headFile, '--acknowledged', emptyAcks, '--format', 'json']);
    expect(refused.code).toBe(1);
    const report = JSON.parse(refused.stdout);
    const breaking = report.changes.filter((c: any) => c.classification === 'breaking');
    expect(breaking.map((c: any) => c.rule)).toEqual(['response.header.removed']);
    expect(breaking[0].basePointer).toBe('/paths/~1cases/post/responses/201/headers/Location');
    expect(report.gate.ok).toBe(false);

    const acks = join(scratch, 'acks.yaml');
    writeFileSync(acks, stringify({ acknowledged: [{ change: breaking[0].id, reason: 'clients never followed Location' }] }));
    const accepted = await run(['--base', baselinePath(repoRoot, release!), '--head', headFile, '--acknowledged', acks, '--format', 'markdown']);
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toMatch(/## Breaking changes\n\n- \*\*POST \/cases\*\*:.*`response.header.removed`/);
    expect(accepted.stdout.indexOf('## Breaking changes')).toBeLessThan(accepted.stdout.indexOf('## Additions'));

    const text = await run(['--base', baselinePath(repoRoot, release!), '--head', headFile, '--acknowledged', acks]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/accepted response\.header\.removed .*POST \/cases kept deprecated until 2027-06-01/);
  }, 60_000);
});
