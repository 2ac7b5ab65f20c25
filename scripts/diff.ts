// `npm run diff -- [--base REF|DIR|FILE] [--head REF|DIR|FILE] [--format text|markdown|json] [--acknowledged FILE]`
// Compares two descriptions and classifies every change (D-52); exits 1 when the gate refuses a breaking change
// (not acknowledged, or not following D-33; D-53). Defaults: base = the last release under releases/, head = the
// working tree's openapi/.
import { parseArgs } from 'node:util';
import { repoRoot } from './build/context.ts';
import { diffDescriptions } from '../src/diff/index.ts';
import { formatJson, formatMarkdown, formatText, type Format } from '../src/diff/format.ts';
import { gate } from '../src/diff/gate.ts';
import { loadDescription } from './contract/load.ts';
import { ACKNOWLEDGED_FILE, baselinePath, latestRelease, readAcknowledgements } from './contract/releases.ts';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    head: { type: 'string' },
    format: { type: 'string', default: 'text' },
    acknowledged: { type: 'string', default: ACKNOWLEDGED_FILE },
  },
});

try {
  const format = values.format as Format;
  if (!['text', 'markdown', 'json'].includes(format)) throw new Error(`--format must be text, markdown or json (got ${format})`);
  const latest = latestRelease(repoRoot);
  const baseSpec = values.base ?? (latest ? baselinePath(repoRoot, latest) : undefined);
  if (!baseSpec) throw new Error('no release under releases/ yet: give --base');
  const base = await loadDescription(baseSpec, repoRoot);
  const head = await loadDescription(values.head ?? 'openapi', repoRoot);
  const started = performance.now();
  const changes = diffDescriptions(base.document, head.document);
  const elapsed = performance.now() - started;
  const result = gate(changes, readAcknowledgements(repoRoot, values.acknowledged), base.document, head.document);
  const labels = { base: base.label, head: head.label };
  if (format === 'json') process.stdout.write(formatJson(changes, labels, result));
  else if (format === 'markdown') process.stdout.write(`# ${labels.base} → ${labels.head}\n\n${formatMarkdown(changes)}`);
  else process.stdout.write(formatText(changes, labels, result));
  if (format !== 'json') console.error(`compared in ${(elapsed / 1000).toFixed(2)} s`);
  process.exitCode = result.ok ? 0 : 1;
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 2;
}
