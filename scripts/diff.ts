// `npm run diff -- [--base REF|DIR|FILE] [--head REF|DIR|FILE] [--format text|markdown|json] [--acknowledged FILE]`
// Compares two descriptions and classifies every change (D-52); exits 1 when the gate refuses a breaking change
// (not acknowledged, or not following D-33; D-53), and only then: anything it cannot judge (an unknown option, a
// side that is not OpenAPI 3.1 or that it refuses to read, D-117, an acknowledgements file that is not there or of
// the wrong shape) exits 2 with one line that says why. Defaults: base = the last release under releases/, head =
// the working tree's openapi/.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from './build/context.ts';
import { assertOpenApi31 } from '../src/diff/accept.ts';
import { oneLine } from './contract/bounded-read.ts';
import { diffDescriptions } from '../src/diff/index.ts';
import { formatJson, formatMarkdown, formatText, type Format } from '../src/diff/format.ts';
import { gate } from '../src/diff/gate.ts';
import { loadDescription } from './contract/load.ts';
import { ACKNOWLEDGED_FILE, baselinePath, latestRelease, readAcknowledgements } from './contract/releases.ts';

const USAGE = 'usage: npm run diff -- [--base REF|DIR|FILE] [--head REF|DIR|FILE] [--format text|markdown|json] [--acknowledged FILE]';

try {
  let values: { base?: string; head?: string; format?: string; acknowledged?: string };
  try {
    ({ values } = parseArgs({
      options: {
        base: { type: 'string' },
        head: { type: 'string' },
        format: { type: 'string', default: 'text' },
        acknowledged: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)} (${USAGE})`);
  }
  if (values.acknowledged !== undefined && !existsSync(resolve(repoRoot, values.acknowledged))) {
    throw new Error(`--acknowledged ${values.acknowledged}: no such file`);
  }
  const format = values.format as Format;
  if (!['text', 'markdown', 'json'].includes(format)) throw new Error(`--format must be text, markdown or json (got ${format})`);
  const latest = latestRelease(repoRoot);
  const baseSpec = values.base ?? (latest ? baselinePath(repoRoot, latest) : undefined);
  if (!baseSpec) throw new Error('no release under releases/ yet: give --base');
  const base = await loadDescription(baseSpec, repoRoot);
  assertOpenApi31(base.document, `--base ${base.label}`);
  const head = await loadDescription(values.head ?? 'openapi', repoRoot);
  assertOpenApi31(head.document, `--head ${head.label}`);
  const started = performance.now();
  const changes = diffDescriptions(base.document, head.document);
  const elapsed = performance.now() - started;
  const result = gate(changes, readAcknowledgements(repoRoot, values.acknowledged ?? ACKNOWLEDGED_FILE), base.document, head.document);
  const labels = { base: base.label, head: head.label };
  if (format === 'json') process.stdout.write(formatJson(changes, labels, result));
  else if (format === 'markdown') process.stdout.write(`# ${labels.base} → ${labels.head}\n\n${formatMarkdown(changes)}`);
  else process.stdout.write(formatText(changes, labels, result));
  if (format !== 'json') console.error(`compared in ${(elapsed / 1000).toFixed(2)} s`);
  process.exitCode = result.ok ? 0 : 1;
} catch (error) {
  // One line: the reason, never a stack trace or a tool's banner.
  console.error(`npm run diff: ${oneLine(error instanceof Error ? error.message : String(error))}`);
  process.exitCode = 2;
}
