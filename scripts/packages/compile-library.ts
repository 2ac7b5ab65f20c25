// Compile a library of src/ with tsc (JavaScript + .d.ts) into a package's dist/, in the repository's layout
// (dist/src/…, dist/generated/…), and answer the packages its output imports (its `dependencies`).
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { packagesAmong } from './dependencies.ts';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

export function compileLibrary(options: { packageDir: string; tsconfig: string }): { imports: Set<string> } {
  const dist = join(options.packageDir, 'dist');
  rmSync(dist, { recursive: true, force: true });
  const configPath = join(options.packageDir, options.tsconfig);
  const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
  if (!config) throw new Error(`cannot read ${configPath}`);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const emitted = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  if (diagnostics.length) {
    const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => options.packageDir, getNewLine: () => '\n' };
    throw new Error(ts.formatDiagnostics(diagnostics, host));
  }
  const specifiers = filesUnder(dist)
    .filter((f) => /\.(js|d\.ts)$/.test(f))
    .flatMap((f) => ts.preProcessFile(readFileSync(f, 'utf8'), true, true).importedFiles.map((i) => i.fileName));
  return { imports: packagesAmong(specifiers) };
}
