// The generic OpenAPI part of the comparison, done by api-smart-diff (docs/decisions.md D-52): it resolves $refs
// and classifies each change by where it is seen (request or response). What it does not know we adapt here:
// - webhooks (OpenAPI 3.1) it leaves unclassified, so each is shown to it as a synthetic operation whose
//   RESPONSE is the event (payload = body, delivery headers = response headers): the service writes it and the
//   integrator reads it, exactly like a response; findings are mapped back to `/webhooks/...` pointers;
// - its findings under `components` repeat what it reports at each place of use, so they are dropped;
// - where its verdict is wrong for us (D-52): a narrowed or widened enum read by the integrator, a removed request
//   field, a `type` change judged by who reads it (classify);
// - it gives no rule ids: one is derived from where the change is and what happened;
// - path items equal on both sides are not given to it at all (dropUnchanged), to keep a diff well under 3 s;
// - a `$ref` with siblings is written out inline first (ref-siblings.ts), so it equals the identical inline object;
// - a parameter list or request body added whole is judged inside (added-whole.ts).
import { apiCompare } from 'api-smart-diff';
import { deref } from '../spec/refs.ts';
import { judgeAddedWhole } from './added-whole.ts';
import { withRefSiblingsInlined } from './ref-siblings.ts';
import { makeChange, toPointer } from './pointer.ts';
import type { Change, Classification, Direction } from './types.ts';

const WEBHOOK_PREFIX = '/__webhook__/';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** Extensions our own rules read (care-lists.ts, care-contract.ts); the library's findings on them are dropped. */
const OWN_EXTENSIONS = new Set(['x-care-operators', 'x-care-value-type', 'x-care-environments', 'x-care-environment']);
const DOC_KEYWORDS = new Set(['description', 'summary', 'title', 'example', 'examples', 'externalDocs', 'tags', 'operationId']);

type Segment = string | number;

interface LibraryDiff {
  action: 'add' | 'remove' | 'replace' | 'rename';
  path: Segment[];
  type: 'breaking' | 'non-breaking' | 'annotation' | 'unclassified' | 'deprecated';
  description?: string;
  before?: unknown;
  after?: unknown;
}

/** The document as api-smart-diff should see it: webhooks turned into synthetic response-shaped operations. */
function prepare(document: any): any {
  const prepared = { ...document, paths: { ...(document.paths ?? {}) } };
  delete prepared.webhooks;
  for (const [name, itemOrRef] of Object.entries<any>(document.webhooks ?? {})) {
    const item = deref(document, itemOrRef) ?? {};
    const synthetic: any = {};
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const body = deref(document, operation.requestBody);
      const headers: Record<string, unknown> = {};
      for (const raw of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
        const parameter = deref(document, raw);
        if (parameter?.in !== 'header') continue;
        const { name: headerName, in: _in, ...header } = parameter;
        headers[headerName] = header;
      }
      const { requestBody: _body, parameters: _parameters, responses: _replies, ...rest } = operation;
      synthetic[method] = {
        ...rest,
        responses: { '200': { description: body?.description ?? 'event', headers, content: body?.content ?? {} } },
      };
    }
    prepared.paths[WEBHOOK_PREFIX + name] = synthetic;
  }
  return prepared;
}

/**
 * `value` with every local `$ref` written out (memoised per ref; a cycle is left as its ref). A reference with
 * siblings (one whose sibling overrides its target, left by withRefSiblingsInlined) becomes `{ $expanded,
 * ...siblings }` for comparing (expandedJson), or stays a reference for the library (`markSiblings` false).
 */
function expanded(document: any, value: unknown, memo: Map<string, unknown>, markSiblings = true): unknown {
  const expand = (node: any, stack: string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => expand(item, stack));
    if (!node || typeof node !== 'object') return node;
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#')) {
      const ref = node.$ref;
      if (stack.includes(ref)) return { $ref: ref };
      const { $ref: _ref, ...siblings } = node;
      if (!markSiblings && Object.keys(siblings).length > 0) return { $ref: ref, ...(expand(siblings, stack) as object) };
      if (!memo.has(ref)) memo.set(ref, expand(deref(document, { $ref: ref }), [...stack, ref]));
      return Object.keys(siblings).length > 0 ? { $expanded: memo.get(ref), ...(expand(siblings, stack) as object) } : memo.get(ref);
    }
    return Object.fromEntries(Object.entries(node).map(([key, inner]) => [key, expand(inner, stack)]));
  };
  return expand(value, []);
}

/** A path item as JSON with every local `$ref` expanded. */
function expandedJson(document: any, value: unknown, memo: Map<string, unknown>): string {
  return JSON.stringify(expanded(document, value, memo));
}

/**
 * Parameters with every plain local `$ref` written out, each use its own copy. api-smart-diff resolves a reference met
 * twice under one object (a shared field filter whose operand is itself a reference) as an `allOf` on the second
 * use when the other side has that object inline: it reported a narrowed operand enum (D-105) as a removed `allOf`
 * and an added type and pattern. Written out on both sides, only the real change is left.
 */
function writeOutParameterRefs(document: any): void {
  const memo = new Map<string, unknown>();
  for (const item of Object.values<any>(document.paths ?? {})) {
    for (const owner of [item, ...METHODS.map((method) => item?.[method]).filter(Boolean)]) {
      if (Array.isArray(owner.parameters)) owner.parameters = structuredClone(expanded(document, owner.parameters, memo, false));
    }
  }
}

/** Path items (synthetic webhooks included) whose expanded content is the same on both sides are left out of the
 * comparison: the library's time grows with what it walks, and most releases touch few operations. */
function dropUnchanged(base: any, head: any): void {
  const baseMemo = new Map<string, unknown>();
  const headMemo = new Map<string, unknown>();
  for (const key of Object.keys(base.paths)) {
    if (!(key in head.paths)) continue;
    if (expandedJson(base, base.paths[key], baseMemo) === expandedJson(head, head.paths[key], headMemo)) {
      delete base.paths[key];
      delete head.paths[key];
    }
  }
}

/** Index of the header parameter `name` of a webhook operation in `document`, for the pointer on that side. */
function webhookHeaderIndex(document: any, name: string, method: string, header: string): number | undefined {
  const operation = deref(document, document?.webhooks?.[name])?.[method];
  const index = (operation?.parameters ?? []).findIndex((p: any) => deref(document, p)?.name === header);
  return index >= 0 ? index : undefined;
}

/** Synthetic webhook path segments back to the real ones of one side (undefined when absent there). */
function realSegments(segments: Segment[], document: any): Segment[] | undefined {
  if (segments[0] !== 'paths' || !String(segments[1]).startsWith(WEBHOOK_PREFIX)) return segments;
  const name = String(segments[1]).slice(WEBHOOK_PREFIX.length);
  const method = segments[2];
  const head: Segment[] = ['webhooks', name];
  if (method === undefined) return head;
  const rest = segments.slice(3);
  if (rest[0] !== 'responses') return [...head, method, ...rest];
  if (rest.length <= 2) return [...head, method, 'requestBody'];
  if (rest[2] === 'headers') {
    if (rest.length === 3) return [...head, method, 'parameters'];
    const index = webhookHeaderIndex(document, name, String(method), String(rest[3]));
    return index === undefined ? undefined : [...head, method, 'parameters', index, ...rest.slice(4)];
  }
  return [...head, method, 'requestBody', ...rest.slice(2)];
}

function verb(action: LibraryDiff['action']): string {
  return { add: 'added', remove: 'removed', replace: 'changed', rename: 'renamed' }[action];
}

/** What part of a schema or object changed, from the segments below the area ('' for the area as a whole). */
function detail(inner: Segment[]): string {
  if (inner.length === 0) return '';
  const last = String(inner[inner.length - 1]);
  const parent = String(inner[inner.length - 2] ?? '');
  if (parent === 'enum' || last === 'enum') return 'enum';
  if (last === 'required' || parent === 'required') return 'required';
  if (parent === 'properties') return 'property';
  if (last.startsWith('x-')) return 'extension';
  return /^\d+$/.test(last) ? parent || 'item' : last;
}

interface Place {
  direction: Direction;
  operation?: string;
  area: string;
  /** Segments below the area: inside the schema, header or object that changed. */
  inner: Segment[];
}

/** Below `content/<media type>/schema`, or `content` itself when the media types changed. */
function bodyPlace(direction: Direction, operation: string | undefined, area: string, rest: Segment[]): Place {
  if (rest[0] !== 'content') return { direction, operation, area, inner: rest };
  if (rest.length <= 2) return { direction, operation, area: `${area}.content`, inner: [] };
  return { direction, operation, area, inner: rest.slice(3) };
}

function placeOf(segments: Segment[]): Place {
  const root = String(segments[0]);
  if (root !== 'paths' && root !== 'webhooks') return { direction: 'document', area: `document.${root}`, inner: [] };
  const isWebhook = root === 'webhooks';
  const method = segments[2] === undefined ? undefined : String(segments[2]);
  const operation = method && METHODS.includes(method)
    ? isWebhook ? `webhook ${segments[1]}` : `${method.toUpperCase()} ${segments[1]}`
    : undefined;
  const rest = segments.slice(3);
  const section = String(rest[0] ?? '');
  if (isWebhook) {
    if (section === 'requestBody') return bodyPlace('event', operation, 'event.body', rest.slice(1));
    if (section === 'parameters') return { direction: 'event', operation, area: 'event.header', inner: rest.slice(2) };
    if (section === 'responses') return { direction: 'event-reply', operation, area: 'event-reply', inner: rest.slice(1) };
    return { direction: 'event', operation, area: 'event', inner: rest };
  }
  if (section === 'parameters') return { direction: 'request', operation, area: 'request.parameter', inner: rest.slice(2) };
  if (section === 'requestBody') return bodyPlace('request', operation, 'request.body', rest.slice(1));
  if (section === 'responses') {
    if (rest.length <= 2) return { direction: 'response', operation, area: 'response.status', inner: [] };
    if (rest[2] === 'headers') return { direction: 'response', operation, area: 'response.header', inner: rest.slice(4) };
    if (rest[2] === 'content') return bodyPlace('response', operation, 'response.body', rest.slice(2));
    return { direction: 'response', operation, area: 'response', inner: rest.slice(2) };
  }
  return { direction: 'request', operation, area: 'operation', inner: rest };
}

function isDocumentation(segments: Segment[]): boolean {
  return segments.some((s) => DOC_KEYWORDS.has(String(s)) || String(s).startsWith('x-'))
    || ['info', 'tags', 'externalDocs', 'x-tagGroups', 'openapi', 'jsonSchemaDialect'].includes(String(segments[0]));
}

function typeSet(value: unknown): Set<string> {
  return new Set((Array.isArray(value) ? value : [value]).filter((t) => t !== undefined).map(String));
}

/** A `type` change: a reader breaks when a type appears it did not expect; a writer when one it sent goes. */
function typeChange(diff: LibraryDiff, readByIntegrator: boolean): Classification {
  const before = typeSet(diff.before);
  const after = typeSet(diff.after);
  const gained = [...after].some((t) => !before.has(t) && !(t === 'integer' && before.has('number')));
  const lost = [...before].some((t) => !after.has(t) && !(t === 'integer' && after.has('number')));
  return (readByIntegrator ? gained : lost) ? 'breaking' : 'non-breaking';
}

/** Whether an added enum value is part of an `enum` the base did not have at all (the library reports its values). */
function enumIsNew(diff: LibraryDiff, before: any): boolean {
  if (diff.action !== 'add' || String(diff.path[diff.path.length - 2]) !== 'enum') return false;
  let node = before;
  for (const segment of diff.path.slice(0, -1)) node = deref(before, node)?.[segment];
  // the library writes an empty `enum` into a side that had none
  return node === undefined || (Array.isArray(node) && node.length === 0);
}

function classify(diff: LibraryDiff, segments: Segment[], place: Place, before: any): { classification: Classification; rule: string } {
  const what = detail(place.inner);
  const base = what ? `${place.area}.${what}` : place.area;
  const rule = (suffix: string) => `${base}.${suffix}`;
  // Links say which answer feeds which request (for tools and readers); no request or answer changes with them.
  if (place.area === 'response' && place.inner[0] === 'links') {
    const wording = String(segments[segments.length - 1]) === 'description';
    return { classification: wording ? 'documentation' : 'non-breaking', rule: `response.links.${wording ? 'description.' : ''}${verb(diff.action)}` };
  }
  if (diff.type === 'deprecated') return { classification: 'non-breaking', rule: base.endsWith('.deprecated') ? base : rule('deprecated') };
  if (diff.type === 'annotation' || (diff.type === 'unclassified' && isDocumentation(segments))) {
    return { classification: 'documentation', rule: rule(verb(diff.action)) };
  }
  const readByIntegrator = place.direction === 'response' || place.direction === 'event';
  if (readByIntegrator && what === 'enum' && diff.action === 'remove') return { classification: 'breaking', rule: rule('narrowed') };
  if (readByIntegrator && what === 'enum' && diff.action === 'add') return { classification: 'breaking', rule: rule('widened') };
  // An enum where a request had none admits fewer values (D-105's operand enums): the library calls it an addition.
  if (!readByIntegrator && enumIsNew(diff, before)) return { classification: 'breaking', rule: rule('introduced') };
  if (what === 'type' && diff.action === 'replace') return { classification: typeChange(diff, readByIntegrator), rule: rule('changed') };
  // A request field that goes is refused (additionalProperties: false, D-35) or silently ignored: breaking both ways.
  if (place.direction === 'request' && what === 'property' && diff.action === 'remove') return { classification: 'breaking', rule: rule('removed') };
  if (diff.type === 'unclassified') return { classification: 'breaking', rule: rule(`${verb(diff.action)}.unclassified`) };
  return { classification: diff.type, rule: rule(verb(diff.action)) };
}

/** Runs `work` without the library's "Classification Rule error" lines (one of its rules throws on some `required`
 * arrays under allOf): the finding then comes back unclassified, which classify() reports as breaking. */
function quietly<T>(work: () => T): T {
  const original = console.error;
  console.error = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith('Classification Rule error')) return;
    original(...args);
  };
  try {
    return work();
  } finally {
    console.error = original;
  }
}

/** The library's findings, adapted; `components`, top-level `security` and `servers` are left to our rules. */
export function libraryChanges(base: any, head: any): Change[] {
  // Copies (withRefSiblingsInlined builds a new document): the library resolves references in place, and callers keep
  // using their documents.
  const before = prepare(withRefSiblingsInlined(base));
  const after = prepare(withRefSiblingsInlined(head));
  dropUnchanged(before, after);
  writeOutParameterRefs(before);
  writeOutParameterRefs(after);
  const { diffs } = quietly(() => apiCompare(before, after)) as { diffs: LibraryDiff[] };
  const changes: Change[] = [];
  for (const diff of diffs) {
    const root = String(diff.path[0]);
    if (root === 'components' || root === 'security' || root === 'servers') continue;
    if (root === 'paths' && diff.path[3] === 'security') continue;
    if (diff.path.some((segment) => OWN_EXTENSIONS.has(String(segment)))) continue;
    const baseSegments = diff.action === 'add' ? undefined : realSegments(diff.path, base);
    const headSegments = diff.action === 'remove' ? undefined : realSegments(diff.path, head);
    const segments = headSegments ?? baseSegments ?? diff.path;
    const place = placeOf(segments);
    const judged = diff.action === 'add' && headSegments ? judgeAddedWhole(base, head, headSegments, place.operation, toPointer(headSegments)) : undefined;
    if (judged) {
      changes.push(...judged);
      continue;
    }
    const { classification, rule } = classify(diff, segments, place, before);
    changes.push(makeChange({
      rule,
      classification,
      direction: place.direction,
      ...(place.operation ? { operation: place.operation } : {}),
      ...(baseSegments ? { basePointer: toPointer(baseSegments) } : {}),
      ...(headSegments ? { headPointer: toPointer(headSegments) } : {}),
      message: (diff.description ?? '').trim() || `${verb(diff.action)} ${toPointer(segments)}`,
    }));
  }
  return changes;
}
