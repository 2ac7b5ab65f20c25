// Receiver-side checks of a delivery: Standard Webhooks signature, replay window, configured authorization, typed payload.
import { randomBytes } from 'node:crypto';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { exampleOf } from '../src/mock/examples.ts';
import { loadSpec, validatorFor } from '../src/spec/index.ts';
import {
  verifyWebhook,
  verifyWebhookRequest,
  WebhookVerificationError,
  type CareWebhookEventType,
  type WebhookAuthorizationConfig,
} from '../src/client/webhooks.ts';

const spec = loadSpec();
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const now = Date.UTC(2026, 10, 3, 14, 2, 11);

/** A delivery as the service sends it (decision D-17): the payload is the description's example of the event. */
function delivery(eventType: string, options: { secret?: string; sentAt?: number; headers?: Record<string, string>; body?: string } = {}) {
  const schema = spec.document.webhooks[eventType].post.requestBody.content['application/json'].schema;
  const body = options.body ?? JSON.stringify(exampleOf(spec, schema, 'response'));
  const id = 'EV0050001';
  const sentAt = new Date(options.sentAt ?? now);
  const signature = new Webhook(options.secret ?? secret).sign(id, sentAt, body);
  return {
    body,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signature,
      'content-type': 'application/json',
      'X-CareAPI-Env': 'Sandbox',
      ...options.headers,
    },
  };
}

const rejection = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as WebhookVerificationError).reason;
  }
  throw new Error('the delivery was accepted');
};

const eventTypes = Object.keys(spec.document.webhooks) as CareWebhookEventType[];

describe('verifyWebhook', () => {
  it.each(eventTypes)('accepts a signed %s delivery and types it by meta.eventType', (eventType) => {
    const { body, headers } = delivery(eventType);
    const checked = verifyWebhook({ body, headers }, { secret, now: () => now });
    expect(checked.eventType).toBe(eventType);
    expect(checked.payload.meta.eventType).toBe(eventType);
    expect(checked.id).toBe('EV0050001');
    expect(checked.environment).toBe('Sandbox');
    expect(checked.timestamp.getTime()).toBe(Math.floor(now / 1000) * 1000);
    const schema = spec.document.webhooks[eventType].post.requestBody.content['application/json'].schema;
    expect(validatorFor(spec, schema)(checked.payload)).toBe(true);
  });

  it('rejects a tampered body', () => {
    const { body, headers } = delivery('case.updated');
    const tampered = body.replace('"status":', '"status": 3, "x":');
    expect(rejection(() => verifyWebhook({ body: tampered, headers }, { secret, now: () => now }))).toBe('bad_signature');
  });

  it('rejects a delivery signed with another secret', () => {
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    const { body, headers } = delivery('case.updated', { secret: other });
    expect(rejection(() => verifyWebhook({ body, headers }, { secret, now: () => now }))).toBe('bad_signature');
  });

  it('accepts any of several secrets while one is rotated, and any of several signatures', () => {
    const old = `whsec_${randomBytes(32).toString('base64')}`;
    const signedOld = delivery('case.updated', { secret: old });
    expect(verifyWebhook(signedOld, { secret: [secret, old], now: () => now }).eventType).toBe('case.updated');
    const signedNew = delivery('case.updated');
    const both = `${signedOld.headers['webhook-signature']} ${signedNew.headers['webhook-signature']}`;
    const checked = verifyWebhook({ body: signedNew.body, headers: { ...signedNew.headers, 'webhook-signature': both } }, { secret, now: () => now });
    expect(checked.eventType).toBe('case.updated');
  });

  it('rejects timestamps outside the tolerance, both ways, and honours a custom tolerance', () => {
    const old = delivery('case.updated', { sentAt: now - 301_000 });
    expect(rejection(() => verifyWebhook(old, { secret, now: () => now }))).toBe('timestamp_out_of_tolerance');
    const future = delivery('case.updated', { sentAt: now + 301_000 });
    expect(rejection(() => verifyWebhook(future, { secret, now: () => now }))).toBe('timestamp_out_of_tolerance');
    const edge = delivery('case.updated', { sentAt: now - 299_000 });
    expect(verifyWebhook(edge, { secret, now: () => now }).eventType).toBe('case.updated');
    expect(verifyWebhook(old, { secret, now: () => now, toleranceSeconds: 600 }).eventType).toBe('case.updated');
  });

  it('rejects a delivery without the signature headers', () => {
    const { body, headers } = delivery('case.updated');
    const { ['webhook-signature']: _dropped, ...rest } = headers;
    expect(rejection(() => verifyWebhook({ body, headers: rest }, { secret, now: () => now }))).toBe('missing_headers');
  });

  it('rejects a signed body that is not an event of the description', () => {
    const forged = delivery('case.updated', { body: JSON.stringify({ meta: { eventType: 'case.deleted' }, data: {} }) });
    expect(rejection(() => verifyWebhook(forged, { secret, now: () => now }))).toBe('invalid_payload');
  });

  describe('authorization configured on the subscription', () => {
    const basic = { type: 'basic', username: 'care-events', password: 's3cr3t-Pa55' } as const;
    const bearer = { type: 'bearer', token: 'eyJhbGciOiJIUzI1NiJ9.receiver.token' } as const;
    const header = { type: 'header', name: 'X-Receiver-Key', value: '6f1c2b9e' } as const;
    const basicValue = `Basic ${Buffer.from('care-events:s3cr3t-Pa55').toString('base64')}`;
    const verify = (authorization: WebhookAuthorizationConfig, headers: Record<string, string>) =>
      verifyWebhook(delivery('case.comment.created', { headers }), { secret, now: () => now, authorization });

    it('accepts each scheme when its header is present', () => {
      expect(verify(basic, { authorization: basicValue }).eventType).toBe('case.comment.created');
      expect(verify(bearer, { Authorization: `Bearer ${bearer.token}` }).eventType).toBe('case.comment.created');
      expect(verify(header, { 'x-receiver-key': '6f1c2b9e' }).eventType).toBe('case.comment.created');
    });

    it('rejects a missing or wrong authorization', () => {
      expect(rejection(() => verify(basic, {}))).toBe('unauthorized');
      expect(rejection(() => verify(basic, { authorization: `Basic ${Buffer.from('care-events:wrong').toString('base64')}` }))).toBe('unauthorized');
      expect(rejection(() => verify(bearer, { authorization: 'Bearer other' }))).toBe('unauthorized');
      expect(rejection(() => verify(header, { 'x-receiver-key': '6f1c2b9f' }))).toBe('unauthorized');
    });

    it('requires every scheme of a list', () => {
      expect(verify([basic, header], { authorization: basicValue, 'x-receiver-key': '6f1c2b9e' }).eventType).toBe('case.comment.created');
      expect(rejection(() => verify([basic, header], { authorization: basicValue }))).toBe('unauthorized');
      expect(rejection(() => verify([basic, header], { 'x-receiver-key': '6f1c2b9e' }))).toBe('unauthorized');
    });

    it('checks nothing more when the subscription has none', () => {
      expect(verify(null, {}).eventType).toBe('case.comment.created');
    });
  });

  it('works on a fetch Request too', async () => {
    const { body, headers } = delivery('case.attachment.created');
    const request = new Request('http://127.0.0.1/hooks', { method: 'POST', body, headers });
    const checked = await verifyWebhookRequest(request, { secret, now: () => now });
    expect(checked.eventType).toBe('case.attachment.created');
  });

  it('tells the receiver which status to answer', () => {
    expect(new WebhookVerificationError('bad_signature', 'x').status).toBe(401);
    expect(new WebhookVerificationError('invalid_payload', 'x').status).toBe(400);
    expect(new WebhookVerificationError('misconfigured', 'x').status).toBe(500);
  });
});

describe('verifyWebhook given the wrong inputs (issue 40)', () => {
  const misconfiguration = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect((error as WebhookVerificationError).reason).toBe('misconfigured');
      return (error as Error).message;
    }
    throw new Error('the delivery was accepted');
  };

  it('refuses an already-parsed body (the express.json() mistake) and says to pass the raw body', () => {
    const { body, headers } = delivery('case.updated');
    const message = misconfiguration(() => verifyWebhook({ body: JSON.parse(body), headers }, { secret, now: () => now }));
    expect(message).toMatch(/raw body/);
    expect(message).toMatch(/express\.raw/);
    expect(misconfiguration(() => verifyWebhook({ body: undefined as never, headers }, { secret, now: () => now }))).toMatch(/raw body/);
  });

  it('accepts the raw body as a Buffer or an ArrayBuffer', () => {
    const { body, headers } = delivery('case.updated');
    const bytes = Buffer.from(body);
    expect(verifyWebhook({ body: bytes, headers }, { secret, now: () => now }).eventType).toBe('case.updated');
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    expect(verifyWebhook({ body: buffer as ArrayBuffer, headers }, { secret, now: () => now }).eventType).toBe('case.updated');
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['whsec_ alone', 'whsec_'],
    ['not base64', 'whsec_not*base64!'],
    ['an empty list', []],
    ['a list with an empty secret', ['']],
  ])('refuses a secret that is %s with its typed error', (_what, badSecret) => {
    const signed = delivery('case.updated');
    expect(misconfiguration(() => verifyWebhook(signed, { secret: badSecret as never, now: () => now }))).toMatch(/secret/);
  });

  it('accepts a valid signature in the first of two webhook-signature headers, as a real server receives them', async () => {
    const signed = delivery('case.updated');
    const other = new Webhook(`whsec_${randomBytes(32).toString('base64')}`).sign('EV0050001', new Date(now), signed.body);
    const received = await new Promise<IncomingHttpHeaders>((resolve, reject) => {
      const server = createServer((req, res) => {
        req.resume();
        res.end();
        server.close();
        resolve(req.headers);
      });
      server.listen(0, '127.0.0.1', () => {
        const { ['webhook-signature']: _one, ...rest } = signed.headers;
        const req = request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, method: 'POST', headers: rest });
        req.setHeader('webhook-signature', [signed.headers['webhook-signature'], other]);
        req.on('error', reject);
        req.end(signed.body);
      });
    });
    expect(received['webhook-signature']).toContain(', ');
    expect(verifyWebhook({ body: signed.body, headers: received }, { secret, now: () => now }).eventType).toBe('case.updated');
    const viaFetch = new Headers(signed.headers);
    viaFetch.append('webhook-signature', other);
    expect(verifyWebhook({ body: signed.body, headers: viaFetch }, { secret, now: () => now }).eventType).toBe('case.updated');
    // and the valid one second, as a list of values
    const listed = { ...signed.headers, 'webhook-signature': [other, signed.headers['webhook-signature']] };
    expect(verifyWebhook({ body: signed.body, headers: listed }, { secret, now: () => now }).eventType).toBe('case.updated');
  });

  it('still fails closed when both headers carry wrong signatures', () => {
    const signed = delivery('case.updated');
    const wrong = new Webhook(`whsec_${randomBytes(32).toString('base64')}`).sign('EV0050001', new Date(now), signed.body);
    const headers = { ...signed.headers, 'webhook-signature': [wrong, wrong] };
    expect(rejection(() => verifyWebhook({ body: signed.body, headers }, { secret, now: () => now }))).toBe('bad_signature');
  });
});
