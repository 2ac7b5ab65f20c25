// The one YAML writer of generated/: same object, same bytes (keys in document order, LF, no anchors, no line
// folding). Written as YAML 1.1 so that every string a 1.1 reader would take for something else (`yes`, `on`,
// `2026-01-01`, `1_000`) is quoted: js-yaml, Prism and the YAML 1.2 readers then all read the same values.
import { stringify } from 'yaml';

export function toYaml(document: unknown): string {
  return stringify(document, { lineWidth: 0, aliasDuplicateObjects: false, indent: 2, singleQuote: true, version: '1.1' });
}
