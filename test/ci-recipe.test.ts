// The platform team's first hour (issue 36): the CI job of docs/conformance.md ("In CI"), taken from the Markdown and
// run as written with bash. It installs @care-api/sandbox and @care-api/conformance from their tarballs, starts the
// sandbox, runs the suite with JUnit output, then the same suite against a deployment: once a production one (a
// second sandbox, whose data must be unchanged: read-only), once one that breaks the contract (the same sandbox behind
// the mutation tests' fault proxy, answering totalCount one too high: the job must fail).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../src/spec/index.ts';
import { FAULTS } from './mutation/faults.ts';
import { FaultProxy } from './mutation/proxy.ts';
import { installProject, packWorkspaces, removeTemporaryDirs, reuseSqliteBinary, type PackedTarball } from './support/packed-project.ts';

const guide = readFileSync(join(repoRoot, 'docs/conformance.md'), 'utf8');

/** The `sh` block of the "In CI" section that is a bash script. */
function recipe(): string {
  const start = guide.indexOf('\n## In CI');
  expect(start, 'docs/conformance.md has an "In CI" section').toBeGreaterThan(0);
  const section = guide.slice(start, guide.indexOf('\n## ', start + 1));
  const scripts = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]).filter((b) => b.startsWith('#!/usr/bin/env bash\n'));
  expect(scripts).toHaveLength(1);
  return scripts[0];
}

let packs: Map<string, PackedTarball>;
let dir: string;
let deployment: { child: ChildProcess; origin: string; configFile: string; config: any };

/** A deployment to point the job at: the installed care-sandbox with a production config (its other environment). */
function startDeployment(projectDir: string): Promise<typeof deployment> {
  const configFile = join(projectDir, 'deployment.json');
  const child = spawn(join(projectDir, 'node_modules/.bin/care-sandbox'), ['--memory', '--port', '0', '--quiet', '--loopback-only', '--seed-cases', '40', '--config-env', 'production', '--write-config', configFile], {
    cwd: projectDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk;
      const m = /listening on (http:\/\/\S+)/.exec(output);
      if (m) resolve({ child, origin: m[1], configFile, config: JSON.parse(readFileSync(configFile, 'utf8')) });
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    child.once('exit', (code) => reject(new Error(`deployment sandbox exited with ${code}: ${output}`)));
  });
}

/** Run the recipe with bash in the project, with the variables it documents; npm may not reach a registry. */
function runRecipe(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const file = join(dir, 'care-conformance.sh');
  writeFileSync(file, recipe());
  for (const report of ['junit-sandbox.xml', 'junit-deployment.xml', 'sandbox.json']) rmSync(join(dir, report), { force: true });
  return new Promise((resolve) => {
    const child = spawn('bash', [file], {
      cwd: dir,
      env: { ...process.env, npm_config_offline: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

/** Counts a read-only run must leave as they were: cases, webhooks and API keys of the deployment's account. */
async function counts(): Promise<Record<string, number>> {
  const { config } = deployment;
  const token = await fetch(`${config.authUrl}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: config.customer.apiKeyId, client_secret: config.customer.apiKeySecret, audience: 'production' }),
  }).then((r) => r.json());
  const result: Record<string, number> = {};
  for (const list of ['cases', 'webhooks', 'apikeys', 'events']) {
    const answer = await fetch(`${config.baseUrl}/${list}?page[size]=1`, { headers: { authorization: `Bearer ${token.access_token}` } });
    expect(answer.status).toBe(200);
    result[list] = (await answer.json()).meta.page.totalCount;
  }
  return result;
}

beforeAll(async () => {
  packs = await packWorkspaces(['@care-api/sandbox', '@care-api/conformance']);
  // The job's `npm install` of the tarballs then finds both installed: better-sqlite3 is put in place as
  // test/packages.test.ts does (its build would take minutes here, and there is no registry to reach).
  ({ dir } = await installProject([...packs.values()], ['--ignore-scripts']));
  reuseSqliteBinary(dir);
  deployment = await startDeployment(dir);
}, 400_000);

afterAll(async () => {
  if (deployment && deployment.child.exitCode === null) {
    const exited = new Promise((resolve) => deployment.child.once('exit', resolve));
    deployment.child.kill('SIGTERM');
    await exited;
  }
  removeTemporaryDirs();
});

describe('the CI recipe of docs/conformance.md, run as written', () => {
  it('installs from the tarballs, passes against its sandbox with a JUnit report, and checks a production deployment read-only', async () => {
    const before = await counts();
    const { code, output } = await runRecipe({ CARE_PACKAGES: dirname(packs.get('@care-api/sandbox')!.file), CARE_TARGET_CONFIG: deployment.configFile });
    expect(code, output.slice(-4000)).toBe(0);
    expect(output).toMatch(/care-sandbox listening on http:\/\/127\.0\.0\.1:\d+/);
    const sandboxReport = readFileSync(join(dir, 'junit-sandbox.xml'), 'utf8');
    expect(sandboxReport).toMatch(/<testsuite /);
    expect(sandboxReport).not.toMatch(/<failure/);
    const deploymentReport = readFileSync(join(dir, 'junit-deployment.xml'), 'utf8');
    expect(deploymentReport).toMatch(/<testcase /);
    expect(deploymentReport).not.toMatch(/<failure/);
    expect(output).toMatch(/\(production, read-only\)/);
    expect(await counts()).toEqual(before);
  }, 900_000);

  it('fails the job when a check fails: a deployment whose lists count one too many', async () => {
    const proxy = new FaultProxy(deployment.origin);
    proxy.fault = FAULTS.find((f) => f.name === 'total-count-off-by-one')!;
    const origin = await proxy.start();
    const brokenFile = join(dir, 'broken.json');
    const swap = (url: string) => url.replace(deployment.origin, origin);
    writeFileSync(brokenFile, JSON.stringify({ ...deployment.config, baseUrl: swap(deployment.config.baseUrl), authUrl: swap(deployment.config.authUrl) }));
    const { code, output } = await runRecipe({ CARE_PACKAGES: dirname(packs.get('@care-api/sandbox')!.file), CARE_TARGET_CONFIG: brokenFile }).finally(() => proxy.close());
    expect(code, output.slice(-4000)).toBe(1); // a failed check (2 would be a usage or configuration error)
    expect(readFileSync(join(dir, 'junit-sandbox.xml'), 'utf8')).not.toMatch(/<failure/); // its own sandbox passed
    expect(readFileSync(join(dir, 'junit-deployment.xml'), 'utf8')).toMatch(/<failure/);
    expect(existsSync(join(dir, 'sandbox.json'))).toBe(true);
  }, 900_000);
});
