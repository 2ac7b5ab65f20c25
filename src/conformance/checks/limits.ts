// Issue 45, item 6: every limit the description declares is probed at the limit and one past it, the values read from
// the description itself (x-care-limits, D-100; the schemas' maxLength and maxItems, D-101), so a deployment that
// enforces another limit than it declares fails: the request head (431), JSON nesting with objects and with arrays
// (too_deep), the JSON body size (413), an upload's file size (413), its parts and its file name, and the bounds of
// the fields of every request body.
//
// Safe against production: the head is probed with a GET; the bodies need writes (a deployment that wrongly accepts
// one would write), so a read-only run skips them. Every body but the uploads carries an unknown member, so even a
// body within every limit is refused (extra_forbidden) and writes nothing.
import { randomBytes } from 'node:crypto';
import type { ServiceLimits } from '../../spec/index.ts';
import { Skip, expect, expectErrors, expectStatus, type Check } from '../check.ts';
import type { Context } from '../context.ts';
import type { Exchange } from '../http.ts';
import { rawExchange } from './hardening-http.ts';

/** A member no request schema declares: it makes every probe body a 400 that writes nothing. */
const PROBE = 'conformanceLimitProbe';

const limitsOf = (ctx: Context): ServiceLimits => ctx.spec.limits;

/** `levels` containers nested in each other, the innermost empty: objects (`{"a":…}`) or arrays (`[…]`). */
function nested(levels: number, kind: 'objects' | 'arrays'): string {
  const [open, close] = kind === 'objects' ? ['{"a":', '}'] : ['[', ']'];
  const innermost = kind === 'objects' ? '{}' : '[]';
  return levels <= 0 ? '0' : open.repeat(levels - 1) + innermost + close.repeat(levels - 1);
}

/** Whether an operation's JSON body schema refuses unknown members (so a probe body writes nothing). */
function closedBody(ctx: Context, operationId: string): boolean {
  const schema = ctx.spec.operation(operationId).requestBody?.schema as any;
  return (schema?.$ref ? ctx.spec.resolve(schema.$ref) : schema)?.additionalProperties === false;
}

/** The POSTs without path parameters (no data needed) whose JSON body refuses unknown members. */
function probeOperations(ctx: Context): string[] {
  return ctx
    .operations()
    .filter((o) => o.method === 'post' && !o.path.includes('{') && o.requestBody?.contentTypes.includes('application/json') && closedBody(ctx, o.operationId))
    .map((o) => o.operationId);
}

/** The JSON body operation the size and depth probes use. */
function jsonOperation(ctx: Context): string {
  const [operationId] = probeOperations(ctx);
  if (!operationId) throw new Skip('no operation without path parameters takes a closed JSON body in this environment');
  return operationId;
}

/** Error objects located at `at` (`body.field` or below it). */
const errorsAt = (x: Exchange, at: string): any[] => (x.json?.errors ?? []).filter((e: any) => typeof e?.detail === 'string' && (e.detail.startsWith(`${at}:`) || e.detail.startsWith(`${at}.`)));

const codes = (x: Exchange): string[] => (x.json?.errors ?? []).map((e: any) => e?.code);

/** A GET whose request line and headers are exactly `bytes` long, as x-care-limits counts them (D-100). */
function headOf(bytes: number, listPath: string) {
  return (base: string, host: string): string => {
    const start = `GET ${base}${listPath}?${PROBE}=`;
    const end = ` HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
    const pad = bytes - Buffer.byteLength(start + end);
    if (pad < 1) throw new Error(`a request head of ${bytes} bytes is too short for ${listPath}`);
    return start + 'a'.repeat(pad) + end;
  };
}

interface Bound {
  field: string;
  kind: 'maxLength' | 'maxItems';
  limit: number;
  /** A value of `size` characters or items that is valid but for its size. */
  value(size: number): unknown;
}

/**
 * The bounded members of a request body schema whose valid values the suite can write: plain strings, arrays of plain
 * strings or e-mails (items with a condition of their own, like an event type or a pattern, are left out).
 */
function boundsOf(ctx: Context, operationId: string): Bound[] {
  const schema = ctx.spec.operation(operationId).requestBody?.schema as any;
  const resolve = (s: any) => (s?.$ref ? ctx.spec.resolve(s.$ref) : s);
  const body = resolve(schema);
  const bounds: Bound[] = [];
  for (const [field, declared] of Object.entries<any>(body?.properties ?? {})) {
    const s = resolve(declared);
    const types = Array.isArray(s?.type) ? s.type : [s?.type];
    const plain = (x: any) => !x.format && !x.pattern && !x.enum && !x.const && (x.minLength ?? 0) <= 1;
    if (types.includes('string') && typeof s.maxLength === 'number' && plain(s)) {
      bounds.push({ field, kind: 'maxLength', limit: s.maxLength, value: (n) => 'x'.repeat(n) });
    }
    if (types.includes('array') && typeof s.maxItems === 'number') {
      const item = resolve(s.items);
      if (item?.type === 'string' && item.format === 'email') {
        bounds.push({ field, kind: 'maxItems', limit: s.maxItems, value: (n) => Array.from({ length: n }, (_, i) => `p${i}@conformance.example`) });
      } else if (item?.type === 'string' && !item.format && !item.pattern && !item.enum && !item.if && !item.oneOf && !item.anyOf && !item.allOf) {
        bounds.push({ field, kind: 'maxItems', limit: s.maxItems, value: (n) => Array.from({ length: n }, (_, i) => `v${i}`) });
      }
    }
  }
  return bounds;
}

/** An upload of `parts` parts: `before` parts named `other`, then the file part named `fileName` holding `bytes`. */
function upload(before: number, fileName: string, bytes: Buffer): { body: Buffer; contentType: string } {
  const boundary = `----care-conformance-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (let i = 0; i < before; i++) chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="other${i}"\r\n\r\nx\r\n`));
  chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
  chunks.push(bytes, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export const limitsChecks: Check[] = [
  {
    id: 'validation.limit-request-head',
    area: 'validation',
    title: 'A request head of requestHeadBytes (x-care-limits) is read; one byte more is 431 in the envelope',
    statements: ['D-100.limits'],
    needs: ['state'], // as the other HTTP-layer checks: a plain Prism applies none of the service's limits
    async run(ctx) {
      const limit = limitsOf(ctx).requestHeadBytes;
      const list = ctx.operations().find((op) => op.list && !op.path.includes('{'));
      if (!list) throw new Skip('no list operation without path parameters in this environment');
      const at = await rawExchange(ctx, headOf(limit, list.path));
      expect(at.status > 0 && at.status !== 431, `a request head of exactly ${limit} bytes should be read (any answer but 431), got ${at.status || 'none'} (${at.text})`);
      const past = await rawExchange(ctx, headOf(limit + 1, list.path));
      expect(past.status === 431, `a request head of ${limit + 1} bytes should be 431, got ${past.status || 'none'} (${past.text})`);
      expect(past.headers['x-careapi-env'] === ctx.envHeader && Array.isArray(past.json?.errors), `the 431 should be in the envelope with X-CareAPI-Env: ${ctx.envHeader} (${past.text})`);
      return `${limit} bytes answered ${at.status}, ${limit + 1} answered 431`;
    },
  },
  {
    id: 'validation.limit-json-depth',
    area: 'validation',
    title: 'A JSON body nested jsonDepth levels (x-care-limits) is not too deep; one level more is 400 too_deep, with objects and with arrays',
    statements: ['D-100.limits', 'D-25.codes', 'D-87.hostile-bodies'],
    needs: ['writes'],
    async run(ctx) {
      const depth = limitsOf(ctx).jsonDepth;
      const operationId = jsonOperation(ctx);
      for (const kind of ['objects', 'arrays'] as const) {
        // the body itself is the first level: its member holds the other depth - 1
        const at = await ctx.call(ctx.customer, operationId, {}, { body: `{"${PROBE}":${nested(depth - 1, kind)}}`, headers: { 'content-type': 'application/json' } });
        expectErrors(at, 400, `${operationId} with ${kind} nested ${depth} levels (refused for its unknown member only)`);
        expect(!codes(at).includes('too_deep'), `${kind} nested ${depth} levels are within jsonDepth ${depth}: no too_deep expected`, at);
        const past = await ctx.call(ctx.customer, operationId, {}, { body: `{"${PROBE}":${nested(depth, kind)}}`, headers: { 'content-type': 'application/json' } });
        expectErrors(past, 400, `${operationId} with ${kind} nested ${depth + 1} levels`);
        expect(codes(past).includes('too_deep'), `${kind} nested ${depth + 1} levels are deeper than jsonDepth ${depth}: too_deep expected`, past);
      }
      return `${depth} levels read, ${depth + 1} too_deep, objects and arrays`;
    },
  },
  {
    id: 'validation.limit-json-body',
    area: 'validation',
    title: 'A JSON body of bodyBytes (x-care-limits) is read; one byte more is 413 payload_too_large',
    statements: ['D-100.limits', 'D-10.attachments', 'D-25.codes', 'D-32.limits'],
    needs: ['writes'],
    async run(ctx) {
      const limit = limitsOf(ctx).bodyBytes['application/json'];
      const operationId = jsonOperation(ctx);
      const sized = (bytes: number) => {
        const frame = `{"${PROBE}":""}`;
        return `{"${PROBE}":"${'a'.repeat(bytes - frame.length)}"}`;
      };
      const at = await ctx.call(ctx.customer, operationId, {}, { body: sized(limit), headers: { 'content-type': 'application/json' } });
      expect(at.status === 400, `a JSON body of exactly ${limit} bytes should be read (400 for its unknown member), got ${at.status}`, at);
      const past = await ctx.call(ctx.customer, operationId, {}, { body: sized(limit + 1), headers: { 'content-type': 'application/json' } });
      const errors = expectErrors(past, 413, `a JSON body of ${limit + 1} bytes`);
      expect(errors.some((e) => e.code === 'payload_too_large'), 'the 413 should say payload_too_large', past);
      return `${limit} bytes read, ${limit + 1} answered 413`;
    },
  },
  {
    id: 'validation.limit-request-fields',
    area: 'validation',
    title: 'Every bounded field of a request body: a value at maxLength/maxItems is accepted, one longer is refused at that field',
    statements: ['D-101.value-bounds', 'D-32.limits'],
    needs: ['writes', 'state'],
    async run(ctx) {
      let probed = 0;
      for (const operationId of probeOperations(ctx)) {
        const op = ctx.spec.operation(operationId);
        for (const bound of boundsOf(ctx, op.operationId)) {
          const at = await ctx.call(ctx.customer, op.operationId, {}, { json: { [bound.field]: bound.value(bound.limit), [PROBE]: 0 } });
          expectErrors(at, 400, `${op.operationId} with ${bound.field} at its ${bound.kind} ${bound.limit} (refused for the unknown member only)`);
          expect(errorsAt(at, `body.${bound.field}`).length === 0, `${op.operationId}: ${bound.field} at its ${bound.kind} ${bound.limit} should be accepted`, at);
          const past = await ctx.call(ctx.customer, op.operationId, {}, { json: { [bound.field]: bound.value(bound.limit + 1), [PROBE]: 0 } });
          expectErrors(past, 400, `${op.operationId} with ${bound.field} one past its ${bound.kind} ${bound.limit}`);
          expect(errorsAt(past, `body.${bound.field}`).length > 0, `${op.operationId}: ${bound.field} one past its ${bound.kind} ${bound.limit} should be refused at body.${bound.field}`, past);
          probed++;
        }
      }
      if (probed === 0) throw new Skip('no bounded field of a request body the suite can fill');
      return `${probed} bounds probed at the limit and one past`;
    },
  },
  {
    id: 'pagination.limit-page',
    area: 'pagination',
    title: "page[number] and page[size] at their declared maximum are answered; one past is 400",
    statements: ['D-101.value-bounds', 'D-43.coercion-details'],
    needs: ['state'],
    async run(ctx) {
      const list = ctx.operations().find((op) => op.list && !op.path.includes('{'));
      if (!list) throw new Skip('no list operation without path parameters in this environment');
      const page = list.parameters.find((p) => p.name === 'page')?.schema as any;
      const resolved = page?.$ref ? ctx.spec.resolve(page.$ref) : page;
      const bounds = resolved?.properties ?? {};
      let probed = 0;
      for (const member of ['number', 'size']) {
        const most = bounds[member]?.maximum;
        if (typeof most !== 'number') continue;
        const at = await ctx.call(ctx.customer, list.operationId, {}, { query: `page[${member}]=${most}` });
        expectStatus(at, 200, `${list.operationId} with page[${member}]=${most} (its maximum)`);
        const past = await ctx.call(ctx.customer, list.operationId, {}, { query: `page[${member}]=${BigInt(most) + 1n}` });
        expectErrors(past, 400, `${list.operationId} with page[${member}]=${BigInt(most) + 1n} (one past its maximum)`);
        probed++;
      }
      if (probed === 0) throw new Skip('the page parameter declares no maximum');
      return `page[number] and page[size] probed at their maximum and one past`;
    },
  },
  {
    id: 'resources.limit-upload',
    area: 'resources',
    title: 'An upload: a file of multipart.fileBytes is stored, one byte more is 413; the file part as part number multipart.parts is read, one later is 400; a name of fileNameCodePoints is kept, a longer one cut there',
    statements: ['D-100.limits', 'D-32.limits', 'D-93.upload-parts'],
    needs: ['writes', 'state'],
    async run(ctx) {
      const { fileBytes, parts, fileNameCodePoints } = limitsOf(ctx).multipart;
      const caseId = await ctx.fixtures.caseId();
      const send = (m: { body: Buffer; contentType: string }) => ctx.call(ctx.customer, 'uploadCaseAttachment', { caseId }, { body: m.body, headers: { 'content-type': m.contentType } });
      const full = await send(upload(0, 'conformance-full.bin', Buffer.alloc(fileBytes, 0x61)));
      expectStatus(full, 201, `an upload of exactly ${fileBytes} bytes`);
      expect(full.json?.data?.size === fileBytes, `the stored size should be ${fileBytes}`, full);
      const over = await send(upload(0, 'conformance-over.bin', Buffer.alloc(fileBytes + 1, 0x61)));
      expectErrors(over, 413, `an upload of ${fileBytes + 1} bytes`);
      const last = await send(upload(parts - 1, 'conformance-last.bin', Buffer.from('last')));
      expectStatus(last, 201, `an upload whose file is part number ${parts} of ${parts}`);
      const late = await send(upload(parts, 'conformance-late.bin', Buffer.from('late')));
      expectErrors(late, 400, `an upload whose file is part number ${parts + 1}`);
      const name = (n: number) => `${'n'.repeat(n - 4)}.bin`;
      const kept = await send(upload(0, name(fileNameCodePoints), Buffer.from('name')));
      expectStatus(kept, 201, `an upload named with ${fileNameCodePoints} characters`);
      expect(kept.json?.data?.fileName === name(fileNameCodePoints), `a file name of ${fileNameCodePoints} characters should be kept whole`, kept);
      const cut = await send(upload(0, name(fileNameCodePoints + 1), Buffer.from('name')));
      expectStatus(cut, 201, `an upload named with ${fileNameCodePoints + 1} characters`);
      expect(cut.json?.data?.fileName === name(fileNameCodePoints + 1).slice(0, fileNameCodePoints), `a file name of ${fileNameCodePoints + 1} characters should be cut after ${fileNameCodePoints}`, cut);
      return `file ${fileBytes}/${fileBytes + 1} bytes, part ${parts}/${parts + 1}, name ${fileNameCodePoints}/${fileNameCodePoints + 1}`;
    },
  },
];
