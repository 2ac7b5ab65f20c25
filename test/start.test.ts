// README's start command: `npm start` brings up the sandbox (with docs) and both Prism mocks, and stops them together.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));

/** Resolves with the whole output once `pattern` has appeared in it; rejects if the process ends first. */
function waitForOutput(child: ChildProcessWithoutNullStreams, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (pattern.test(output)) {
        child.stdout.off('data', onData);
        resolve(output);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`npm start ended (${code}) before printing ${pattern}:\n${output}`)));
  });
}

describe('npm start', () => {
  let child: ChildProcessWithoutNullStreams;
  let output = '';

  beforeAll(async () => {
    child = spawn(tsx, ['scripts/start.ts', '--memory', '--port', '0', '--seed-cases', '5', '--mock-port', '0', '--loopback-only'], { cwd: root });
    output = await waitForOutput(child, /mock \(Prism\) sandbox\s+\S+/);
  });

  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  const urlAfter = (label: RegExp) => {
    const match = output.match(new RegExp(label.source + String.raw`\s+(http://127\.0\.0\.1:\d+\S*)`));
    if (!match) throw new Error(`no URL after ${label} in:\n${output}`);
    return match[1];
  };

  it('serves the sandbox API with its env header and the docs', async () => {
    const sandboxApi = urlAfter(/sandbox API/);
    const unauthorised = await fetch(`${sandboxApi}/cases`);
    expect(unauthorised.status).toBe(401);
    expect(unauthorised.headers.get('x-careapi-env')).toBe('Sandbox');
    const docs = await fetch(urlAfter(/docs/));
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('<html');
  });

  it('serves a Prism mock per environment', async () => {
    for (const [environment, value] of [['production', 'Production'], ['sandbox', 'Sandbox']] as const) {
      const response = await fetch(`${urlAfter(new RegExp(String.raw`mock \(Prism\) ${environment}`))}/cases`, {
        headers: { authorization: 'Bearer any-token' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-careapi-env')).toBe(value);
    }
  });

  it('stops everything on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
