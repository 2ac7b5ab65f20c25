// The gate (D-53): a breaking change passes only when it is acknowledged (named, with a reason) AND follows D-33:
// the operation it touches is kept deprecated with a sunset date and declared `Deprecation`/`Sunset` headers, or
// (for a removal) was already deprecated in the base with a sunset that has passed, or the head serves a new
// path version (`/care/vN` with a higher N). One more route (D-91): a change that only writes into the schema a rule
// the service already enforced under a decision (`codifies: D-nn`), when the description cites that decision at the
// changed place or above it, so the rule was the contract before it was a keyword.
import { deref } from '../spec/refs.ts';
import { readDeprecation } from '../spec/deprecation.ts';
import { sideOperations, type SideOperation } from './operations.ts';
import type { Change } from './types.ts';

export interface Acknowledgement {
  /** The change id as printed by the diff: `<rule> <pointer>`. */
  change: string;
  reason: string;
  /** The decision whose rule the change writes into the schema (`D-44`): the service enforced it already. */
  codifies?: string;
}

export interface GateVerdict {
  change: Change;
  acknowledged?: Acknowledgement;
  /** Why it may pass (D-33 route), when it may. */
  route?: string;
  /** Why it may not, when it may not. */
  problem?: string;
}

export interface GateResult {
  ok: boolean;
  verdicts: GateVerdict[];
  /** Acknowledgements that name no change of this comparison. */
  unused: Acknowledgement[];
}

/** Highest `/vN` path version among the document's servers. */
export function pathVersion(document: any): number {
  const versions = (document?.servers ?? []).map((s: any) => /\/v(\d+)(?:\/|$)/.exec(String(s?.url ?? ''))?.[1]).filter(Boolean).map(Number);
  return versions.length > 0 ? Math.max(...versions) : 0;
}

/** Why a deprecated operation does not announce itself completely, or undefined when it does. */
export function deprecationGap(document: any, side: SideOperation): string | undefined {
  const deprecation = readDeprecation(side.operation);
  if (!deprecation) return 'it is not `deprecated: true`';
  if ('problem' in deprecation) return deprecation.problem;
  if (side.kind === 'webhook') return undefined;
  for (const [status, raw] of Object.entries<any>(side.operation.responses ?? {})) {
    const headers = deref(document, raw)?.headers ?? {};
    for (const name of ['Deprecation', 'Sunset']) {
      if (!(name in headers)) return `response ${status} does not declare the ${name} header`;
    }
  }
  return undefined;
}

/** Whether `decision` is cited (a description's text or `x-care-decision`) on the way to `pointer` in `document`. */
export function citedOnTheWay(document: any, pointer: string | undefined, decision: string): boolean {
  if (!pointer) return false;
  const cites = new RegExp(`\\b${decision.replace(/[^A-Za-z0-9-]/g, '')}\\b`);
  const citing = (node: any) => node && typeof node === 'object' && ['description', 'summary', 'x-care-decision'].some((key) => typeof node[key] === 'string' && cites.test(node[key]));
  let node: any = document;
  for (const raw of ['', ...pointer.split('/').slice(1)]) {
    if (raw !== '') {
      if (node === null || typeof node !== 'object') return false;
      node = node[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    if (citing(node)) return true;
    const seen = new Set<string>();
    while (node && typeof node === 'object' && typeof node.$ref === 'string' && node.$ref.startsWith('#') && !seen.has(node.$ref)) {
      seen.add(node.$ref);
      try {
        node = deref(document, { $ref: node.$ref });
      } catch {
        return false;
      }
      if (citing(node)) return true;
    }
  }
  return false;
}

function route(change: Change, base: any, head: any, today: Date, acknowledged: Acknowledgement): { route?: string; problem?: string } {
  if (acknowledged.codifies !== undefined) {
    const decision = acknowledged.codifies;
    const cited = citedOnTheWay(head, change.headPointer, decision) || citedOnTheWay(base, change.basePointer ?? change.headPointer, decision);
    return cited
      ? { route: `codifies ${decision}: the service already enforced this rule` }
      : { problem: `codifies ${decision}, but the description cites ${decision} neither at ${change.headPointer ?? change.basePointer} nor above it` };
  }
  if (pathVersion(head) > pathVersion(base)) return { route: `new path version v${pathVersion(head)}` };
  if (!change.operation) return { problem: 'a document-wide breaking change needs a new path version (D-33)' };
  const after = sideOperations(head).get(change.operation);
  if (after) {
    const gap = deprecationGap(head, after);
    return gap ? { problem: `${change.operation} must be kept deprecated with Deprecation and Sunset headers (D-33): ${gap}` } : { route: `${change.operation} kept deprecated until ${after.operation['x-care-sunset']}` };
  }
  const before = sideOperations(base).get(change.operation);
  const announced = before && readDeprecation(before.operation);
  if (announced && !('problem' in announced) && announced.sunset.getTime() <= today.getTime()) return { route: `${change.operation} removed after its sunset ${before!.operation['x-care-sunset']}` };
  return { problem: `${change.operation} is removed before it was deprecated with a sunset that has passed (D-33)` };
}

export function gate(changes: Change[], acknowledgements: Acknowledgement[], base: any, head: any, today = new Date()): GateResult {
  const verdicts: GateVerdict[] = [];
  const used = new Set<Acknowledgement>();
  for (const change of changes.filter((c) => c.classification === 'breaking')) {
    const acknowledged = acknowledgements.find((a) => a.change === change.id);
    if (!acknowledged) {
      verdicts.push({ change, problem: 'not acknowledged in releases/acknowledged.yaml' });
      continue;
    }
    used.add(acknowledged);
    verdicts.push({ change, acknowledged, ...route(change, base, head, today, acknowledged) });
  }
  return { ok: verdicts.every((v) => !v.problem), verdicts, unused: acknowledgements.filter((a) => !used.has(a)) };
}

const ENTRY_KEYS = new Set(['change', 'reason', 'codifies']);

/**
 * Reads the acknowledgement list: a mapping with one member, `acknowledged`, a list (empty when nothing is
 * acknowledged) of `{change, reason, codifies?}`. Any other shape (an empty file, a list at the top, a misspelt key,
 * an entry with a member it does not know) is an error naming what is wrong, never "nothing acknowledged".
 */
export function parseAcknowledgements(value: any, where: string): Acknowledgement[] {
  const shape = 'the file must be a mapping `acknowledged: [{change, reason}, ...]`';
  if (value === null || value === undefined) throw new Error(`${where}: the file is empty; ${shape} (write \`acknowledged: []\` for none)`);
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`${where}: the file holds ${Array.isArray(value) ? 'a list' : `a ${typeof value}`}; ${shape}`);
  const others = Object.keys(value).filter((key) => key !== 'acknowledged');
  if (others.length > 0) throw new Error(`${where}: unknown member ${others.map((k) => JSON.stringify(k)).join(', ')}; ${shape}`);
  if (!('acknowledged' in value)) throw new Error(`${where}: no \`acknowledged\` member; ${shape}`);
  const list = value.acknowledged ?? [];
  if (!Array.isArray(list)) throw new Error(`${where}: acknowledged must be a list`);
  return list.map((entry: any, index: number) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new Error(`${where}: acknowledged[${index}] must be a mapping {change, reason}`);
    const unknown = Object.keys(entry).filter((key) => !ENTRY_KEYS.has(key));
    if (unknown.length > 0) throw new Error(`${where}: acknowledged[${index}] has unknown member ${unknown.map((k) => JSON.stringify(k)).join(', ')} (members: change, reason, codifies)`);
    if (typeof entry.change !== 'string' || entry.change.trim() === '' || typeof entry.reason !== 'string' || entry.reason.trim() === '') {
      throw new Error(`${where}: acknowledged[${index}] needs a change id and a non-empty reason`);
    }
    if (entry.codifies !== undefined && (typeof entry.codifies !== 'string' || !/^D-[0-9]+$/.test(entry.codifies))) {
      throw new Error(`${where}: acknowledged[${index}].codifies must be a decision id such as D-44`);
    }
    return { change: entry.change, reason: entry.reason, ...(entry.codifies !== undefined ? { codifies: entry.codifies } : {}) };
  });
}
