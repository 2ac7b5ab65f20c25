// README's start command: `npm start` brings up the sandbox (with docs) and both Prism mocks, and stops them together.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmStart, urlAfter as urlIn, type StartProcess } from './helpers/npm-start.ts';

describe('npm start', () => {
  let run: StartProcess;
  let output = '';

  beforeAll(async () => {
    run = npmStart(['--memory', '--port', '0', '--seed-cases', '5', '--mock-port', '0', '--loopback-only']);
    await run.waitFor(/Ctrl-C stops all/);
    output = run.output;
  });

  afterAll(async () => {
    await run?.stop();
  });

  const urlAfter = (label: RegExp) => urlIn(output, label);

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

  it('says the database is in memory and seeded, and names the Prism process of each mock', () => {
    expect(output).toContain('database: in memory, seeded with 5 cases per environment (production and sandbox)');
    expect(output).toMatch(/mock \(Prism\) sandbox\s+http:\S+\s+X-CareAPI-Env: Sandbox\s+\(Prism pid \d+\)/);
  });

  it('stops everything on SIGTERM', async () => {
    expect(await run.stop()).toBe(0);
  });
});

// What npm start says it did (issue 36 item 4): the database created and seeded (how many cases) or reused, how to
// start afresh (--reset), its own options in --help beside the sandbox's, busy ports named with the flag to change.
describe('npm start says what it did', () => {
  const dir = mkdtempSync(join(tmpdir(), 'care-start-'));
  const db = join(dir, 'sandbox.db');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** npm start on `db` (sandbox alone), until it has said everything; then stopped. Its whole output. */
  async function startOnce(extra: string[] = []): Promise<string> {
    const run = npmStart(['--db', db, '--port', '0', '--seed-cases', '3', '--no-mocks', '--loopback-only', ...extra]);
    await run.waitFor(/Ctrl-C stops all/);
    expect(await run.stop()).toBe(0);
    return run.output;
  }

  it('says the database was created and seeded, then reused, and how to start afresh; --reset does', async () => {
    const first = await startOnce();
    expect(first).toContain(`database: ${db} created and seeded with 3 cases per environment (production and sandbox).`);
    expect(first).toContain('To start afresh: npm start -- --reset');
    expect(first).not.toMatch(/case lists in memory/);
    const second = await startOnce();
    expect(second).toContain(`database: ${db} reused`);
    const reset = await startOnce(['--reset']);
    expect(reset).toContain(`database: ${db} created and seeded with 3 cases per environment`);
  });

  it('refuses --reset while another sandbox uses the database, naming it', async () => {
    const holder = npmStart(['--db', db, '--port', '0', '--no-mocks', '--loopback-only']);
    await holder.waitFor(/Ctrl-C stops all/);
    try {
      const second = npmStart(['--db', db, '--port', '0', '--no-mocks', '--reset']);
      expect(await second.exited).toBe(1);
      expect(second.output).toMatch(/--reset refused: the database .* is in use by process \d+/);
      expect(existsSync(db)).toBe(true);
    } finally {
      await holder.stop();
    }
  });

  it('lists its own options and the sandbox\'s with --help', async () => {
    const help = npmStart(['--help']);
    expect(await help.exited).toBe(0);
    for (const option of ['--reset', '--no-mocks', '--mock-port N', '--db FILE', '--seed-cases N', '--memory']) expect(help.output).toContain(option);
  });

  it('names a busy sandbox port and the flag that changes it', async () => {
    const held = createServer();
    await new Promise<void>((done) => held.listen(0, '127.0.0.1', () => done()));
    const { port } = held.address() as AddressInfo;
    try {
      const run = npmStart(['--memory', '--port', String(port), '--no-mocks']);
      expect(await run.exited).not.toBe(0);
      expect(run.output).toContain(`port ${port} (the sandbox) is already in use`);
      expect(run.output).toContain('npm start -- --port N');
    } finally {
      held.close();
    }
  });

  it('beside a running one, names everything in its way at once (database, sandbox port, mock ports) and exits 2', async () => {
    const first = npmStart(['--db', db, '--port', '0', '--seed-cases', '3', '--no-mocks', '--loopback-only']);
    await first.waitFor(/Ctrl-C stops all/);
    const held = [createServer(), createServer(), createServer()];
    const ports: number[] = [];
    try {
      for (const server of held) {
        await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
        ports.push((server.address() as AddressInfo).port);
      }
      // the sandbox on one busy port, the mocks on two consecutive ones that may or may not be free
      const [sandboxPort, mockPort] = ports;
      const second = npmStart(['--db', db, '--port', String(sandboxPort), '--mock-port', String(mockPort)]);
      expect(await second.exited).toBe(2);
      expect(second.output).toMatch(new RegExp(`the database ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use`));
      expect(second.output).toContain(`port ${sandboxPort} (the sandbox) is already in use`);
      expect(second.output).toContain(`port ${mockPort} (the production mock) is already in use`);
      expect(second.output).not.toMatch(/mock \(Prism\)|listening on/);
    } finally {
      for (const server of held) server.close();
      expect(await first.stop()).toBe(0);
    }
  });

  it('names a busy mock port and the flag that changes it, never moving to another port', async () => {
    const held = createServer();
    await new Promise<void>((done) => held.listen(0, '127.0.0.1', () => done()));
    const { port } = held.address() as AddressInfo;
    try {
      const run = npmStart(['--memory', '--port', '0', '--seed-cases', '3', '--mock-port', String(port)]);
      expect(await run.exited).toBe(2);
      expect(run.output).toContain(`port ${port} (the production mock) is already in use`);
      expect(run.output).toContain('--mock-port N');
      expect(run.output).not.toMatch(/mock \(Prism\) production\s+http/);
    } finally {
      held.close();
    }
  });
});
