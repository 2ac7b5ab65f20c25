// The JSON report: the run report as is (already redacted), for dashboards and other tools.
import type { RunReport } from '../types.ts';

export function renderJson(report: RunReport): string {
  return JSON.stringify(report, null, 2) + '\n';
}
