// Rules on the contract around the bodies, which a generic diff gets wrong or does not see:
// - environments (`x-care-environments` on path items, `x-care-environment` on servers): an operation that leaves
//   an environment is gone for the integrators there (D-01);
// - `X-CareAPI-Env` on every response and every event: clients rely on it to tell which data they hold;
// - security: any change of an operation's requirements or of a scheme breaks someone's credentials;
// - the receiver's replies to a delivery (`webhooks.*.responses`): the service reads them, so a reply it no longer
//   honours (410 disabling the endpoint) breaks the receiver that sends it.
import { deref } from '../spec/refs.ts';
import { common, parametersOf, sideOperations, type SideOperation } from './operations.ts';
import { makeChange, toPointer } from './pointer.ts';
import type { Change, RuleFindings } from './types.ts';

export const ENV_HEADER = 'X-CareAPI-Env';
const ALL_ENVIRONMENTS = ['production', 'sandbox'];

function documentEnvironments(document: any): string[] {
  const declared = (document?.servers ?? []).map((s: any) => s?.['x-care-environment']).filter((e: unknown) => typeof e === 'string');
  return declared.length > 0 ? [...new Set<string>(declared)] : ALL_ENVIRONMENTS;
}

function environmentsOf(document: any, side: SideOperation): { environments: string[]; pointer: string } {
  const declared = side.pathItem['x-care-environments'];
  const itemPointer = side.pointer.replace(/\/[^/]+$/, '');
  return Array.isArray(declared)
    ? { environments: declared.map(String), pointer: `${itemPointer}/x-care-environments` }
    : { environments: documentEnvironments(document), pointer: '/servers' };
}

function environmentChanges(base: any, head: any, before: SideOperation, after: SideOperation, findings: RuleFindings): void {
  if (before.kind !== 'path') return;
  const was = environmentsOf(base, before);
  const now = environmentsOf(head, after);
  for (const environment of was.environments.filter((e) => !now.environments.includes(e))) {
    findings.changes.push(makeChange({ rule: 'care.environment.removed', classification: 'breaking', direction: 'document', operation: before.key, basePointer: was.pointer, headPointer: now.pointer, message: `${before.key} no longer served in ${environment} (now: ${now.environments.join(', ') || 'none'})` }));
  }
  for (const environment of now.environments.filter((e) => !was.environments.includes(e))) {
    findings.changes.push(makeChange({ rule: 'care.environment.added', classification: 'non-breaking', direction: 'document', operation: before.key, basePointer: was.pointer, headPointer: now.pointer, message: `${before.key} now also served in ${environment}` }));
  }
}

function envHeaderChanges(base: any, head: any, before: SideOperation, after: SideOperation, findings: RuleFindings): void {
  if (before.kind === 'webhook') {
    const header = (document: any, side: SideOperation) => parametersOf(document, side).find(({ parameter }) => parameter?.in === 'header' && parameter.name === ENV_HEADER);
    const was = header(base, before);
    if (was && !header(head, after)) {
      findings.changes.push(makeChange({ rule: 'care.env-header.removed', classification: 'breaking', direction: 'event', operation: before.key, basePointer: was.pointer, message: `the ${before.key} delivery no longer carries ${ENV_HEADER}` }));
      findings.supersedes.push(was.pointer);
    }
    return;
  }
  for (const [status, rawBefore] of Object.entries<any>(before.operation.responses ?? {})) {
    const rawAfter = after.operation.responses?.[status];
    if (!rawAfter) continue; // a removed status code is reported by the generic part
    const hadIt = deref(base, rawBefore)?.headers?.[ENV_HEADER] !== undefined;
    const hasIt = deref(head, rawAfter)?.headers?.[ENV_HEADER] !== undefined;
    if (!hadIt || hasIt) continue;
    const basePointer = `${before.pointer}${toPointer(['responses', status, 'headers', ENV_HEADER])}`;
    findings.changes.push(makeChange({ rule: 'care.env-header.removed', classification: 'breaking', direction: 'response', operation: before.key, basePointer, message: `response ${status} of ${before.key} no longer carries ${ENV_HEADER}` }));
    findings.supersedes.push(basePointer);
  }
}

/** Requirements in a comparable form: alternatives sorted, each `scheme:scope,scope` sorted. */
function normalSecurity(requirements: unknown): string {
  if (!Array.isArray(requirements)) return 'inherit';
  return JSON.stringify(requirements.map((alternative: any) => Object.keys(alternative ?? {}).sort().map((scheme) => `${scheme}:${[...(alternative[scheme] ?? [])].sort().join(',')}`).join('&')).sort());
}

function securityChanges(base: any, head: any, findings: RuleFindings): void {
  if (normalSecurity(base.security) !== normalSecurity(head.security)) {
    findings.changes.push(makeChange({ rule: 'care.security.changed', classification: 'breaking', direction: 'document', basePointer: '/security', headPointer: '/security', message: `security requirements of the description changed: ${normalSecurity(base.security)} → ${normalSecurity(head.security)}` }));
  }
  for (const [before, after] of common(sideOperations(base), sideOperations(head))) {
    const was = before.operation.security ?? (before.kind === 'path' ? base.security : undefined);
    const now = after.operation.security ?? (after.kind === 'path' ? head.security : undefined);
    const ownBefore = before.operation.security !== undefined;
    const ownAfter = after.operation.security !== undefined;
    if ((ownBefore || ownAfter) && normalSecurity(was) !== normalSecurity(now)) {
      findings.changes.push(makeChange({ rule: 'care.security.changed', classification: 'breaking', direction: 'request', operation: before.key, basePointer: ownBefore ? `${before.pointer}/security` : '/security', headPointer: ownAfter ? `${after.pointer}/security` : '/security', message: `security requirements of ${before.key} changed: ${normalSecurity(was)} → ${normalSecurity(now)}` }));
    }
  }
  const schemesBefore = base.components?.securitySchemes ?? {};
  const schemesAfter = head.components?.securitySchemes ?? {};
  const at = (name: string) => toPointer(['components', 'securitySchemes', name]);
  const withoutText = (scheme: any) => JSON.stringify(scheme, (key, value) => (key === 'description' ? undefined : value));
  for (const [name, raw] of Object.entries<any>(schemesBefore)) {
    const was = deref(base, raw);
    const now = deref(head, schemesAfter[name]);
    if (now === undefined) {
      findings.changes.push(makeChange({ rule: 'care.security.scheme.removed', classification: 'breaking', direction: 'document', basePointer: at(name), message: `security scheme \`${name}\` removed` }));
    } else if (withoutText(was) !== withoutText(now)) {
      findings.changes.push(makeChange({ rule: 'care.security.scheme.changed', classification: 'breaking', direction: 'document', basePointer: at(name), headPointer: at(name), message: `security scheme \`${name}\` changed (type, flow, token URL, scopes or scheme)` }));
    } else if (JSON.stringify(was) !== JSON.stringify(now)) {
      findings.changes.push(makeChange({ rule: 'care.security.scheme.description.changed', classification: 'documentation', direction: 'document', basePointer: at(name), headPointer: at(name), message: `description of security scheme \`${name}\` changed` }));
    }
  }
  for (const name of Object.keys(schemesAfter)) {
    if (!(name in schemesBefore)) findings.changes.push(makeChange({ rule: 'care.security.scheme.added', classification: 'non-breaking', direction: 'document', headPointer: at(name), message: `security scheme \`${name}\` added` }));
  }
}

function replyChanges(before: SideOperation, after: SideOperation, findings: RuleFindings): void {
  if (before.kind !== 'webhook') return;
  const was = Object.keys(before.operation.responses ?? {});
  const now = Object.keys(after.operation.responses ?? {});
  for (const status of was.filter((s) => !now.includes(s))) {
    findings.changes.push(makeChange({ rule: 'event-reply.status.removed', classification: 'breaking', direction: 'event-reply', operation: before.key, basePointer: `${before.pointer}/responses/${status}`, message: `a receiver's ${status} reply to ${before.key} is no longer honoured as declared` }));
  }
  for (const status of now.filter((s) => !was.includes(s))) {
    findings.changes.push(makeChange({ rule: 'event-reply.status.added', classification: 'non-breaking', direction: 'event-reply', operation: before.key, headPointer: `${after.pointer}/responses/${status}`, message: `a receiver may now reply ${status} to ${before.key}` }));
  }
}

function serverChanges(base: any, head: any, findings: RuleFindings): void {
  const key = (server: any, index: number) => String(server?.['x-care-environment'] ?? index);
  const before = new Map<string, [any, number]>((base.servers ?? []).map((s: any, i: number) => [key(s, i), [s, i]]));
  const after = new Map<string, [any, number]>((head.servers ?? []).map((s: any, i: number) => [key(s, i), [s, i]]));
  const push = (change: Omit<Change, 'id' | 'direction'>) => findings.changes.push(makeChange({ ...change, direction: 'document' }));
  for (const [name, [server, index]] of before) {
    const next = after.get(name);
    if (!next) {
      push({ rule: 'care.server.removed', classification: 'breaking', basePointer: `/servers/${index}`, message: `server ${server.url} (${name}) removed` });
    } else if (next[0].url !== server.url || JSON.stringify(next[0].variables ?? {}) !== JSON.stringify(server.variables ?? {})) {
      push({ rule: 'care.server.url.changed', classification: 'breaking', basePointer: `/servers/${index}/url`, headPointer: `/servers/${next[1]}/url`, message: `server (${name}) ${server.url} → ${next[0].url}` });
    } else if (next[0].description !== server.description) {
      push({ rule: 'care.server.description.changed', classification: 'documentation', basePointer: `/servers/${index}`, headPointer: `/servers/${next[1]}`, message: `description of server (${name}) changed` });
    }
  }
  for (const [name, [server, index]] of after) {
    if (!before.has(name)) push({ rule: 'care.server.added', classification: 'non-breaking', headPointer: `/servers/${index}`, message: `server ${server.url} (${name}) added` });
  }
}

export function contractRules(base: any, head: any): RuleFindings {
  const findings: RuleFindings = { changes: [], supersedes: [] };
  for (const [before, after] of common(sideOperations(base), sideOperations(head))) {
    environmentChanges(base, head, before, after, findings);
    envHeaderChanges(base, head, before, after, findings);
    replyChanges(before, after, findings);
  }
  securityChanges(base, head, findings);
  serverChanges(base, head, findings);
  return findings;
}
