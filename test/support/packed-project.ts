// A consumer's project made from the packed tarballs, installed offline: `npm pack` of the workspaces, then
// `npm ci --offline --omit=dev` in a fresh directory. The project's package-lock.json is written from the repository's
// (the same versions the repository tests, found in the npm cache by integrity) so the install needs no registry
// metadata and cannot pick a newer version the cache does not hold.
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../../src/spec/index.ts';

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const temporaryDirs: string[] = [];
function temporaryDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporaryDirs.push(dir);
  return dir;
}
/** Remove the tarballs and projects made so far. */
export function removeTemporaryDirs(): void {
  for (const dir of temporaryDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface PackedTarball {
  name: string;
  version: string;
  file: string;
  files: { path: string; size: number }[];
  dependencies: Record<string, string>;
  bin?: Record<string, string>;
}

/** `npm pack` every workspace package, or the named ones (each one's prepack builds it), into a temporary directory. */
export async function packWorkspaces(only?: string[]): Promise<Map<string, PackedTarball>> {
  const dir = temporaryDir('care-packs-');
  const which = only ? only.flatMap((name) => ['--workspace', name]) : ['--workspaces'];
  const { stdout } = await run(npm, ['pack', ...which, '--pack-destination', dir, '--json'], { cwd: repoRoot, maxBuffer: 64 << 20 });
  const packed = new Map<string, PackedTarball>();
  for (const p of JSON.parse(stdout)) {
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'node_modules', p.name, 'package.json'), 'utf8'));
    packed.set(p.name, { name: p.name, version: p.version, file: join(dir, p.filename), files: p.files, dependencies: manifest.dependencies ?? {}, bin: manifest.bin });
  }
  return packed;
}

/** The lock entry of `dep` as node would find it from the package installed at `from` (nested first, then up). */
function findLocked(packages: Record<string, any>, from: string, dep: string): string {
  for (let at = from; ; ) {
    const candidate = `${at ? `${at}/` : ''}node_modules/${dep}`;
    if (packages[candidate]) return candidate;
    if (!at) throw new Error(`${dep} (needed by ${from}) is not in the repository's package-lock.json`);
    const cut = at.lastIndexOf('/node_modules/');
    at = cut < 0 ? '' : at.slice(0, cut);
  }
}

/** A package-lock.json for a project depending on `tarballs`: their dependency closure copied from the repository's. */
export function consumerLock(projectDir: string, tarballs: PackedTarball[], name = 'consumer') {
  const rootLock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8'));
  const dependencies = Object.fromEntries(tarballs.map((t) => [t.name, `file:${relative(projectDir, t.file)}`]));
  const packages: Record<string, any> = { '': { name, dependencies } };
  const queue: [string, Record<string, string>][] = [];
  for (const t of tarballs) {
    // bin here too: npm links a locked package's bins from its lock entry
    packages[`node_modules/${t.name}`] = { version: t.version, resolved: dependencies[t.name], dependencies: t.dependencies, ...(t.bin ? { bin: t.bin } : {}) };
    queue.push(['', t.dependencies]);
  }
  while (queue.length) {
    const [from, deps] = queue.shift()!;
    for (const dep of Object.keys(deps)) {
      const path = findLocked(rootLock.packages, from, dep);
      if (packages[path]) continue;
      const { dev, devOptional, peer, ...entry } = rootLock.packages[path]; // a consumer's production dependency
      packages[path] = entry;
      queue.push([path, entry.dependencies ?? {}]);
    }
  }
  return { name, lockfileVersion: 3, requires: true, packages };
}

/** A fresh project with the tarballs installed by `npm ci --offline --omit=dev` (more npm flags in `extraFlags`). */
export async function installProject(tarballs: PackedTarball[], extraFlags: string[] = []): Promise<{ dir: string; log: string }> {
  const dir = temporaryDir('care-consumer-');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2));
  return { dir, log: await installInto(dir, tarballs, extraFlags) };
}

/** A new empty directory, removed with the others by removeTemporaryDirs. */
export function emptyProjectDir(): string {
  return temporaryDir('care-project-');
}

/**
 * Install the tarballs into an existing project (its package.json as `npm init` and the like left it): they become
 * its dependencies, as `npm install ./x.tgz` would record them, and are installed by `npm ci --offline --omit=dev`.
 */
export async function installInto(dir: string, tarballs: PackedTarball[], extraFlags: string[] = []): Promise<string> {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const lock = consumerLock(dir, tarballs, manifest.name);
  manifest.dependencies = { ...manifest.dependencies, ...lock.packages[''].dependencies };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lock, null, 2));
  const { stdout, stderr } = await run(npm, ['ci', '--offline', '--omit=dev', '--no-audit', '--no-fund', '--foreground-scripts', ...extraFlags], { cwd: dir, maxBuffer: 64 << 20 });
  return stdout + stderr;
}

/**
 * better-sqlite3 compiles from source for about 80 s where no prebuilt binary is reachable (this machine, CI). The
 * project installs it with --ignore-scripts and gets the binary the repository built: the same package version
 * (checked) for the Node running this test, whose ABI the repository's binary was built for (CI rebuilds it per Node
 * line). Exactly what its install script would have produced.
 */
export function reuseSqliteBinary(projectDir: string): void {
  const version = (dir: string) => JSON.parse(readFileSync(join(dir, 'node_modules/better-sqlite3/package.json'), 'utf8')).version;
  if (version(projectDir) !== version(repoRoot)) throw new Error('better-sqlite3 of the tarball differs from the repository\'s: cannot reuse its binary');
  const target = join(projectDir, 'node_modules/better-sqlite3/build/Release');
  mkdirSync(target, { recursive: true });
  copyFileSync(join(repoRoot, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'), join(target, 'better_sqlite3.node'));
}

/** Run a command in a project; answers its exit code and output (never throws on a non-zero exit). */
export function runIn(dir: string, command: string, args: string[], timeoutMs = 300_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    execFile(command, args, { cwd: dir, timeout: timeoutMs, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as any).code === 'number' ? (error as any).code : -1) : 0;
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** `care-sandbox` of the project's node_modules/.bin, in memory on a free port, delivering to loopback only (D-64); ready when it prints its URL. */
export function startInstalledSandbox(dir: string): Promise<{ url: string; configFile: string; stop(): Promise<void> }> {
  const configFile = join(dir, 'sandbox.json');
  const child = spawn(join(dir, 'node_modules/.bin/care-sandbox'), ['--memory', '--port', '0', '--quiet', '--loopback-only', '--seed-cases', '60', '--write-config', configFile], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = () => new Promise<void>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
  return new Promise((resolvePromise, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`care-sandbox did not start within 60 s:\n${output}`)), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      const m = /listening on (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolvePromise({ url: m[1], configFile, stop });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`care-sandbox exited with ${code}:\n${output}`));
    });
  });
}
