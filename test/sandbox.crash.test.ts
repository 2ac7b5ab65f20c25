// Durability: writes under load, kill -9 of the sandbox process, restart on the same database: every write that was
// answered 2xx is there (WAL, decision of issue 4).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../src/spec/index.ts';
import { send, tokenFor } from './helpers/sandbox.ts';

const dir = mkdtempSync(join(tmpdir(), 'care-crash-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Start the CLI on a free port; resolves with its origin once it prints the listening line. */
function start(): Promise<{ child: ChildProcess; origin: string }> {
  const child = spawn(process.execPath, [join(repoRoot, 'bin/care-sandbox.js'), '--port', '0', '--db', join(dir, 'crash.db'), '--seed-cases', '20', '--loopback-only', '--write-config', join(dir, 'config.json'), '--quiet'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, origin: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${out}`)));
  });
}

describe('crash safety', () => {
  it('keeps every acknowledged write across kill -9 and restart', async () => {
    const first = await start();
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    const token = await tokenFor(config.authUrl.replace(/\/auth\/v2$/, ''), config.customer.apiKeyId, config.customer.apiKeySecret, 'sandbox');
    const contract = config.customer.contracts[0];
    const acknowledged: Array<{ id: string; shortDescription: string }> = [];
    let sent = 0;
    let killed = false;
    const exited = new Promise((resolve) => first.child.once('exit', resolve));

    // 8 writers; after 150 acknowledged writes the process is killed while requests are still in flight
    const writer = async (w: number) => {
      for (let i = 0; i < 100 && !killed; i++) {
        const shortDescription = `crash ${w}-${i}-${sent++}`;
        try {
          const answer = await send(`${config.baseUrl}/cases`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ contract, shortDescription }),
          });
          if (answer.status === 201) acknowledged.push({ id: answer.json.data.id, shortDescription });
        } catch {
          return; // the connection died with the process
        }
        if (acknowledged.length >= 150 && !killed) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
    await exited;
    expect(killed).toBe(true);
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);

    const second = await start();
    const token2 = await tokenFor(second.origin, config.customer.apiKeyId, config.customer.apiKeySecret, 'sandbox');
    const base = `${second.origin}/care/v0/sandbox`;
    for (const write of acknowledged) {
      const answer = await send(`${base}/cases/${write.id}`, { headers: { authorization: `Bearer ${token2}` } });
      expect(answer.status, write.id).toBe(200);
      expect(answer.json.data.shortDescription).toBe(write.shortDescription);
    }
    const list = await send(`${base}/cases?filter[shortDescription][startswith]=crash&page[size]=1`, { headers: { authorization: `Bearer ${token2}` } });
    expect(list.json.meta.page.totalCount).toBeGreaterThanOrEqual(acknowledged.length);
    second.child.kill('SIGTERM');
  });
});
