// Runs the pinned Redocly CLI as a child process: it ships as one bundled file with no programmatic API.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';

const require = createRequire(import.meta.url);
const cliPath = resolve(dirname(require.resolve('@redocly/cli/package.json')), 'bin/cli.js');

/** No telemetry, no update check, no banner: the build talks to nobody and prints only what matters. */
const quietEnv = {
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
  NO_COLOR: '1',
};

export interface RedoclyResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runRedocly(args: string[], cwd: string): Promise<RedoclyResult> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      process.execPath,
      [cliPath, ...args],
      { cwd, env: { ...process.env, ...quietEnv }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(error);
        resolvePromise({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
      },
    );
  });
}

export interface LintProblem {
  ruleId: string;
  severity: string;
  message: string;
  file: string;
  pointer: string;
  line?: number;
}

/** Lints `files` (or the `apis` of redocly.yaml when empty) and returns every problem, warnings included. */
export async function lint(files: string[], cwd: string, config = 'redocly.yaml'): Promise<LintProblem[]> {
  const result = await runRedocly(['lint', '--format=json', `--config=${config}`, '--max-problems=10000', ...files], cwd);
  // One JSON report per file, printed back to back (`}{`); a line starting with `{` only opens a report.
  const reports = result.stdout
    .replace(/^\}\{$/gm, '}\n{')
    .split(/^(?=\{$)/m)
    .filter((chunk) => chunk.trim().startsWith('{'))
    .map((chunk) => JSON.parse(chunk) as { problems: any[] });
  if (reports.length === 0) throw new Error(`redocly lint printed no report (exit ${result.code}):\n${result.stderr}`);
  const problems = reports.flatMap((report) => report.problems);
  return problems.map((problem) => ({
    ruleId: problem.ruleId,
    severity: problem.severity,
    message: problem.message,
    file: problem.location?.[0]?.source?.ref ?? '',
    pointer: problem.location?.[0]?.pointer ?? '',
    line: problem.location?.[0]?.start?.line,
  }));
}

export function formatProblems(problems: LintProblem[]): string {
  return problems
    .map((p) => `  ${p.file}${p.line ? `:${p.line}` : ''} ${p.severity} ${p.ruleId}: ${p.message} (${p.pointer})`)
    .join('\n');
}
