// Issue 34, item 5: what a deployment must survive from outside. Prototype keys in any JSON body are refused as
// unknown fields; JSON nested thousands deep is a 400, not a 500; malformed request targets (an absolute-form target
// that is no URL, bad percent-escapes in and outside the API) are answered and the service answers afterwards; an
// acknowledged write is what is stored even when another write lands between its headers and its body (the last write
// wins, D-88: no conditional requests in v0, so A is answered 200 with both changes); and a datetime
// filter bound finer than a millisecond is compared exactly (D-71).
//
// Safe against production: the body checks need writes (a deployment that wrongly accepts such a body would write),
// so a read-only run skips them; the raw targets and the filter bound are reads.
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { serializeFilter } from '../../grammar/index.ts';
import { Skip, expect, expectErrors, expectStatus, type Check } from '../check.ts';
import type { Context } from '../context.ts';
import { MARK } from '../context.ts';
import { rawExchange, type RawAnswer } from './hardening-http.ts';
import { validBody } from './validation.ts';

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'];
/** Far beyond any depth a description's bodies need (the issue's 6 kB body that took a server down). */
const DEEP = 3000;

/** Operations of the environment that take a JSON body. */
function jsonBodies(ctx: Context): string[] {
  return ctx.operations().filter((op) => op.requestBody?.contentTypes.includes('application/json')).map((op) => op.operationId);
}

/** A body for the operation: a valid one where it has required members, else one member that changes nothing. */
async function bodyFor(ctx: Context, operationId: string): Promise<Record<string, unknown>> {
  const schema = ctx.spec.operation(operationId).requestBody?.schema as any;
  const resolved = schema?.$ref ? ctx.spec.resolve(schema.$ref) : schema;
  return Array.isArray(resolved?.required) && resolved.required.length > 0 ? validBody(ctx, operationId) : {};
}

/** JSON text with `key` as the first member: JSON.stringify cannot write an own `__proto__` member. */
function withKey(body: Record<string, unknown>, key: string, value: string): string {
  const rest = JSON.stringify(body).slice(1, -1);
  return `{${JSON.stringify(key)}:${value}${rest ? `,${rest}` : ''}}`;
}

/** The enum of a case field as the update body declares it. */
function enumOf(ctx: Context, field: string): number[] {
  const schema = ctx.spec.operation('updateCase').requestBody?.schema as any;
  const body = schema?.$ref ? ctx.spec.resolve(schema.$ref) : schema;
  const prop = body?.properties?.[field];
  const resolved = prop?.$ref ? ctx.spec.resolve(prop.$ref) : prop;
  return Array.isArray(resolved?.enum) ? resolved.enum : [];
}

interface StagedRequest {
  /** Write the rest (the body) and read the answer until the server closes. */
  finish(rest: string): Promise<RawAnswer>;
}

/** Open a connection and send the first part of a request (its head); the rest is sent by `finish`. */
function stagedRequest(ctx: Context, head: (basePath: string, host: string) => string): Promise<StagedRequest> {
  const base = new URL(ctx.config.baseUrl);
  const port = Number(base.port || (base.protocol === 'https:' ? 443 : 80));
  const timeoutMs = ctx.counter.timeoutMs;
  ctx.counter.refuseUnsafe(head('', '').split(' ')[0], base.href);
  ctx.counter.total++;
  return new Promise((resolveOpen, rejectOpen) => {
    const chunks: Buffer[] = [];
    let closed: () => void = () => undefined;
    const done = new Promise<void>((r) => (closed = r));
    const onConnect = () => socket.write(head(base.pathname.replace(/\/$/, ''), base.host), () => resolveOpen({ finish }));
    const socket: Socket =
      base.protocol === 'https:'
        ? connectTls({ host: base.hostname, port, servername: base.hostname }, onConnect)
        : connectTcp(port, base.hostname, onConnect);
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (e) => (chunks.length ? undefined : rejectOpen(e)));
    socket.on('close', () => {
      clearTimeout(timer);
      closed();
    });
    async function finish(rest: string): Promise<RawAnswer> {
      socket.write(rest);
      await done;
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = text.slice(0, split < 0 ? text.length : split).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      let body = split < 0 ? '' : text.slice(split + 4);
      if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
        let out = '';
        for (let r = body; ; ) {
          const eol = r.indexOf('\r\n');
          const size = parseInt(r.slice(0, eol), 16);
          if (!(size > 0)) break;
          out += r.slice(eol + 2, eol + 2 + size);
          r = r.slice(eol + 2 + size + 2);
        }
        body = out;
      }
      let json: any;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      return { status: Number(statusLine?.split(' ')[1]), headers, json, text: `${statusLine}\n${body.slice(0, 300)}` };
    }
  });
}

/** The same case state, whatever the order of members: the fields both hold compared as JSON. */
function sameCase(a: any, b: any): boolean {
  const keys = [...new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})])].sort();
  return keys.every((k) => JSON.stringify(a?.[k]) === JSON.stringify(b?.[k]));
}

/** An ISO datetime `offsetMs` (may be fractional, to the microsecond) after `ms`: six fraction digits. */
function isoMicros(ms: number, offsetMicros: number): string {
  const micros = ms * 1000 + offsetMicros;
  const whole = Math.floor(micros / 1000);
  const extra = String(micros - whole * 1000).padStart(3, '0');
  return new Date(whole).toISOString().replace(/Z$/, `${extra}Z`);
}

export const hostileChecks: Check[] = [
  {
    id: 'validation.prototype-keys',
    area: 'validation',
    title: 'Prototype keys (__proto__, constructor, prototype) in a JSON body, at the top level or nested, are 400 extra_forbidden naming them, in every body',
    statements: ['S7.status-400', 'S7.error-object', 'D-25.codes', 'D-35.unknown-body', 'D-87.hostile-bodies'],
    needs: ['writes', 'state'],
    cases: (ctx) => jsonBodies(ctx),
    async run(ctx, op) {
      const params = await ctx.fixtures.pathParams(op!);
      const body = await bodyFor(ctx, op!);
      for (const key of PROTOTYPE_KEYS) {
        // The value a prototype-pollution attempt would send; harmless if a target took it.
        const text = withKey(body, key, '{"conformance":true}');
        const x = await ctx.call(ctx.customer, op!, params, { body: text, headers: { 'content-type': 'application/json' } });
        const errors = expectErrors(x, 400, `${op} with a "${key}" member`);
        const named = errors.find((e) => String(e.detail).startsWith(`body.${key}`));
        expect(named, `${op} with a "${key}" member: no error names body.${key}: ${errors.map((e) => e.detail).join(' | ')}`, x);
        expect(named.code === 'extra_forbidden', `${op} with a "${key}" member: the error's code should be extra_forbidden (D-35), got ${JSON.stringify(named.code)}`, x);
        // Below the top level too ("anywhere", D-87): a server that looks at the top level only misses it.
        const nested = withKey(body, 'conformance', withKey({ a: 1 }, key, '{"conformance":true}'));
        const y = await ctx.call(ctx.customer, op!, params, { body: nested, headers: { 'content-type': 'application/json' } });
        const deeper = expectErrors(y, 400, `${op} with a "${key}" member nested in an object`);
        expect(deeper.some((e) => String(e.detail).startsWith(`body.conformance.${key}`) && e.code === 'extra_forbidden'),
          `${op} with a "${key}" member nested in an object: no extra_forbidden error names body.conformance.${key}: ${deeper.map((e) => `${e.code} ${e.detail}`).join(' | ')}`, y);
      }
      return `${PROTOTYPE_KEYS.join(', ')}, at the top level and nested`;
    },
  },
  {
    id: 'validation.deep-json',
    area: 'validation',
    title: `JSON nested beyond the declared depth is 400 too_deep, ${DEEP} deep too (not a 5xx), and the service answers afterwards`,
    statements: ['S7.status-400', 'S1.error-envelope', 'D-25.codes', 'D-87.hostile-bodies'],
    needs: ['writes', 'state'],
    async run(ctx) {
      const body = await validBody(ctx, 'createCase');
      // The body object is level 1; `levels` counts it with the arrays nested where a string belongs (description).
      const nested = (levels: number) => withKey(body, 'description', `${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}`);
      const send = (text: string) => ctx.call(ctx.customer, 'createCase', {}, { body: text, headers: { 'content-type': 'application/json' } });
      const notes: string[] = [];
      // the depth x-care-limits declares (D-100): one level past it is too_deep, the limit itself is not
      {
        const limit = ctx.spec.limits.jsonDepth;
        const over = await send(nested(limit + 1));
        const errors = expectErrors(over, 400, `createCase nested ${limit + 1} levels deep (the description allows ${limit})`);
        expect(errors.some((e) => e.code === 'too_deep'), `${limit + 1} levels: no too_deep error: ${errors.map((e) => `${e.code} ${e.detail}`).join(' | ')}`, over);
        const at = await send(nested(limit));
        expect(!(at.json?.errors ?? []).some((e: any) => e.code === 'too_deep'), `${limit} levels, as deep as the description allows, is refused as too deep`, at);
        notes.push(`declared ${limit} levels`);
      }
      for (const [what, text] of [['arrays', `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`], ['objects', `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`]] as const) {
        // Where a string belongs: a server that walks the body before validating it meets the depth first. Objects
        // count as arrays do (D-87): one that counts only arrays answers a type error here, not too_deep.
        const x = await send(withKey(body, 'description', text));
        const errors = expectErrors(x, 400, `createCase with ${what} nested ${DEEP} deep in description`);
        expect(errors.some((e) => e.code === 'too_deep'), `${what} nested ${DEEP} deep: no too_deep error (D-87 counts objects and arrays together): ${errors.map((e) => `${e.code} ${e.detail}`).join(' | ')}`, x);
        expect(x.headers['x-careapi-env'] === ctx.envHeader, `the 400 lacks X-CareAPI-Env: ${ctx.envHeader}`, x);
      }
      expectStatus(await ctx.call(ctx.customer, 'listContracts'), 200, 'listContracts after the deep bodies');
      return [...notes, `${DEEP} levels of arrays and of objects`].join('; ');
    },
  },
  {
    id: 'operations.malformed-targets',
    area: 'operations',
    title: 'Malformed request targets (absolute-form that is no URL, bad escapes in and outside the API) are answered with 4xx, and the service answers afterwards',
    statements: ['S7.status-400', 'S1.error-envelope', 'S7.error-env-header', 'D-69.head-and-percent', 'D-70.http-layer-errors', 'D-89.malformed-requests'],
    needs: ['state'], // a plain mock may die of them (issue 35): not something a stateless run does to it
    async run(ctx) {
      const list = ctx.path('listCases');
      const auth = await ctx.customer.authorization();
      const close = (host: string) => `Host: ${host}\r\n${auth ? `Authorization: ${auth}\r\n` : ''}Connection: close\r\n\r\n`;
      const probes: Array<[string, (base: string, host: string) => string, boolean]> = [
        ['GET http://[/', (_b, h) => `GET http://[/ HTTP/1.1\r\n${close(h)}`, false],
        ['GET //[', (_b, h) => `GET //[ HTTP/1.1\r\n${close(h)}`, false],
        ['GET /docs/%zz', (_b, h) => `GET /docs/%zz HTTP/1.1\r\n${close(h)}`, false],
        [`GET ${list}/%E0%A4%A`, (b, h) => `GET ${b}${list}/%E0%A4%A HTTP/1.1\r\n${close(h)}`, true],
      ];
      const seen: string[] = [];
      for (const [what, bytes, api] of probes) {
        const answer = await rawExchange(ctx, bytes);
        expect(answer.status >= 400 && answer.status < 500, `${what}: expected a 4xx answer, got ${answer.status || 'none (the connection closed without an answer)'} (${answer.text})`);
        if (api) {
          expect(answer.headers['x-careapi-env'] === ctx.envHeader, `${what}: the ${answer.status} lacks X-CareAPI-Env: ${ctx.envHeader} (${answer.text})`);
          expect(Array.isArray(answer.json?.errors), `${what}: the ${answer.status} is not in the error envelope (${answer.text})`);
        }
        seen.push(`${answer.status}`);
      }
      expectStatus(await ctx.call(ctx.customer, 'listContracts'), 200, 'listContracts after the malformed targets');
      return seen.join(', ');
    },
  },
  {
    id: 'resources.interleaved-write',
    area: 'resources',
    title: "An acknowledged PATCH is what is stored when another PATCH lands between its headers and its body, and each answer is a state that was stored",
    statements: ['S4.case-crud', 'D-02.success-codes', 'D-88.last-write-wins'],
    needs: ['writes', 'state'],
    async run(ctx) {
      const contract = await ctx.fixtures.contract();
      const created = await ctx.call(ctx.customer, 'createCase', {}, { json: { contract, shortDescription: `${MARK} ${ctx.runTag} interleaved` } });
      expectStatus(created, 201, 'createCase');
      const start = created.json.data;
      const status = enumOf(ctx, 'status').find((s) => s !== start.status);
      const priority = enumOf(ctx, 'priority').find((p) => p !== start.priority);
      if (status === undefined || priority === undefined) throw new Skip('the description declares no second status or priority to change to');
      const casePath = ctx.path('updateCase', { caseId: start.id });
      const auth = await ctx.customer.authorization();
      const bodyA = JSON.stringify({ status });
      // A: its head only. B: a whole PATCH, answered. Then A's body: A is decided after B whatever it read first.
      const a = await stagedRequest(ctx, (base, host) => `PATCH ${base}${casePath} HTTP/1.1\r\nHost: ${host}\r\n${auth ? `Authorization: ${auth}\r\n` : ''}Content-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${Buffer.byteLength(bodyA)}\r\nConnection: close\r\n\r\n`);
      const b = await ctx.call(ctx.customer, 'updateCase', { caseId: start.id }, { json: { priority } });
      expectStatus(b, 200, 'PATCH B (priority), sent while A waited for its body');
      const answerA = await a.finish(bodyA);
      const stored = await ctx.call(ctx.customer, 'getCase', { caseId: start.id });
      expectStatus(stored, 200, 'getCase after both');
      const now = stored.json.data;
      expect(b.json.data.priority === priority && b.json.data.status === start.status, `B's answer (priority ${b.json.data.priority}, status ${b.json.data.status}) is not the state B stored (priority ${priority}, status ${start.status})`, b);
      expect(answerA.status === 200 && answerA.json?.data, `PATCH A: expected 200 with the case, got ${answerA.status} (${answerA.text})`);
      const dataA = answerA.json.data;
      expect(dataA.status === status && dataA.priority === priority, `A's answer (status ${dataA.status}, priority ${dataA.priority}) lost B's priority ${priority}: A was decided on the case as it was before B`, stored);
      expect(sameCase(now, dataA), `the stored case is not A's answer, the last acknowledged write: stored ${JSON.stringify(now)}, A answered ${JSON.stringify(dataA)}`, stored);
      return 'A decided after B';
    },
  },
  {
    id: 'filters.sub-millisecond',
    area: 'filters',
    title: 'A datetime filter bound finer than a millisecond is compared exactly (D-71)',
    statements: ['S1.filter-semantics', 'S1.coercion', 'D-71.sub-millisecond'],
    needs: ['state'],
    async run(ctx) {
      const list = ctx.spec.operation('listCases').list!;
      const field = Object.values(list.filterFields).find((f) => f.type === 'datetime' && ['lt', 'ge', 'eq', 'between'].every((o) => f.operators.includes(o)));
      if (!field || !list.filterFields.id?.operators.includes('eq')) throw new Skip('listCases declares no datetime field with lt, ge, eq and between, or no id eq');
      const item = (await ctx.fixtures.cases()).find((c) => typeof c[field.name] === 'string');
      if (!item) throw new Skip(`no case with a ${field.name} to filter on`);
      const t = Date.parse(item[field.name]);
      const half = 500; // microseconds
      // [operator, value, does the item match?]: a bound truncated or rounded to the millisecond answers otherwise.
      const probes: Array<[string, unknown, boolean]> = [
        ['lt', isoMicros(t, half), true],
        ['ge', isoMicros(t, half), false],
        ['eq', isoMicros(t, half), false],
        ['ne', isoMicros(t, half), true],
        ['gt', isoMicros(t, -half), true],
        ['le', isoMicros(t, -half), false],
        ['between', [isoMicros(t, -half), isoMicros(t, half)], true],
        ['between', [isoMicros(t, half), isoMicros(t, 1000 + half)], false],
        ['lt', `${Math.floor(t / 1000)}.${String(t % 1000).padStart(3, '0')}5`, true], // Unix seconds, half a millisecond on
      ];
      for (const [operator, value, matches] of probes) {
        if (!field.operators.includes(operator)) continue;
        const query = serializeFilter({ id: { eq: item.id }, [field.name]: { [operator]: value } } as any, ctx.spec.operators).join('&');
        const r = await ctx.list(ctx.customer, 'listCases', {}, query);
        expect(r.page.totalCount === (matches ? 1 : 0), `${field.name} ${operator} ${JSON.stringify(value)} on a case of ${item[field.name]}: expected ${matches ? 'it' : 'nothing'}, got ${r.page.totalCount} item(s)`, r.exchange);
      }
      return `${probes.length} bounds half a millisecond off ${item[field.name]}`;
    },
  },
];
