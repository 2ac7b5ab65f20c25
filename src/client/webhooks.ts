// Receiver side of a webhook delivery (decision D-17): Standard Webhooks signature, replay window, the
// subscription's own authorization headers, then a payload typed by its event type.
import { Webhook } from 'standardwebhooks';
import type { components, webhooks } from '../../generated/care-api.d.ts';
import { careWebhookEventTypes } from '../../generated/care-events.ts';

export type CareWebhookEventType = keyof webhooks & string;

/** The JSON body of a delivery of one event type, as the description declares it. */
export type CareWebhookPayload<T extends CareWebhookEventType = CareWebhookEventType> = T extends CareWebhookEventType
  ? NonNullable<webhooks[T]['post']['requestBody']>['content']['application/json']
  : never;

/** A checked delivery; `eventType` (copied from `payload.meta.eventType`) discriminates the union. */
export type CareWebhookDelivery = {
  [T in CareWebhookEventType]: {
    eventType: T;
    payload: CareWebhookPayload<T>;
    /** `webhook-id`: the event id, the same on every retry; use it to drop duplicates. */
    id: string;
    /** When this attempt was sent (`webhook-timestamp`). */
    timestamp: Date;
    /** `X-CareAPI-Env` of the delivery (`Production` or `Sandbox`), or null when absent. */
    environment: 'Production' | 'Sandbox' | null;
  };
}[CareWebhookEventType];

/** The `authorization` configured on the subscription (one scheme or a list; all must be present). */
export type WebhookAuthorizationConfig = components['schemas']['WebhookAuthorization'];

export interface VerifyWebhookOptions {
  /** The subscription's signing secret(s), `whsec_...`; several while a secret is rotated. */
  secret: string | string[];
  /** The authorization configured on the subscription, checked when given. */
  authorization?: WebhookAuthorizationConfig;
  /**
   * Largest accepted distance between `webhook-timestamp` and now, in seconds (default 300; 0 to 86 400). Anything
   * else (NaN, a string, Infinity) is refused as `misconfigured`: the replay check cannot judge without it.
   */
  toleranceSeconds?: number;
  /** Clock, for tests (milliseconds). */
  now?: () => number;
}

export type WebhookRejection =
  | 'missing_headers'
  | 'timestamp_out_of_tolerance'
  | 'bad_signature'
  | 'unauthorized'
  | 'invalid_payload'
  /**
   * The receiver's own mistake, found before the delivery is judged: a body that is not the raw bytes (already
   * parsed), a missing or malformed secret, a `toleranceSeconds` or `now()` that is no usable number, an incomplete
   * `authorization`. A check that cannot judge refuses every delivery rather than pass one.
   */
  | 'misconfigured';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookRejection,
    message: string,
  ) {
    super(message);
  }
  /**
   * The HTTP status a receiver should answer: 401 for authentication failures, 400 for a malformed delivery, 500 for
   * a misconfigured receiver (so the service delivers again once it is fixed).
   */
  get status(): 400 | 401 | 500 {
    if (this.reason === 'misconfigured') return 500;
    return this.reason === 'invalid_payload' || this.reason === 'missing_headers' ? 400 : 401;
  }
}

export type HeaderBag = Headers | Record<string, string | string[] | undefined>;

export interface WebhookDeliveryInput {
  headers: HeaderBag;
  /** The raw body exactly as received (a string, Buffer, Uint8Array or ArrayBuffer): the signature covers these bytes. */
  body: string | Uint8Array | ArrayBuffer;
}

export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/** Checks a delivery and returns it typed; throws WebhookVerificationError with the reason otherwise. */
export function verifyWebhook(delivery: WebhookDeliveryInput, options: VerifyWebhookOptions): CareWebhookDelivery {
  // The receiver's own mistakes first, so they show on the first delivery whatever it carries: a check that cannot
  // judge (no secret, a tolerance or clock that is not a number) refuses every delivery instead of passing it.
  const body = rawBody(delivery?.body);
  const signers = signersOf(options?.secret);
  const tolerance = toleranceOf(options.toleranceSeconds);
  const nowMs = clockOf(options.now);
  if (options.authorization != null) authorizationSchemes(options.authorization);
  const header = headerReader(delivery.headers ?? {});
  const id = header('webhook-id');
  const timestampText = header('webhook-timestamp');
  const signatures = header('webhook-signature');
  if (!id || !timestampText || !signatures) {
    throw new WebhookVerificationError('missing_headers', 'webhook-id, webhook-timestamp and webhook-signature are required');
  }

  const timestamp = checkTimestamp(timestampText, tolerance, nowMs);
  checkSignature(id, timestamp, body, signatures, signers);
  if (options.authorization != null) checkAuthorization(header, options.authorization);
  const env = header('x-careapi-env');
  const environment = env === 'Production' || env === 'Sandbox' ? env : null;
  return { ...typedPayload(body), id, timestamp, environment } as CareWebhookDelivery;
}

/** The same check on a fetch `Request` (Node 20+, workers, most frameworks). */
export async function verifyWebhookRequest(request: Request, options: VerifyWebhookOptions): Promise<CareWebhookDelivery> {
  // The bytes, not request.text(): decoding text drops a leading byte order mark the signature covers.
  return verifyWebhook({ headers: request.headers, body: new Uint8Array(await request.arrayBuffer()) }, options);
}

function misconfigured(message: string): WebhookVerificationError {
  return new WebhookVerificationError('misconfigured', message);
}

/** Largest `toleranceSeconds`: one day (D-116). A longer replay window is no replay check. */
export const MAX_TOLERANCE_SECONDS = 86_400;

/** `toleranceSeconds`, or the default; anything but a number of seconds from 0 to one day is a receiver mistake. */
function toleranceOf(value: unknown): number {
  if (value === undefined) return DEFAULT_TOLERANCE_SECONDS;
  if (typeof value === 'number' && value >= 0 && value <= MAX_TOLERANCE_SECONDS) return value;
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  throw misconfigured(`toleranceSeconds must be a number of seconds from 0 to ${MAX_TOLERANCE_SECONDS}, not ${shown}: without it no delivery can be judged fresh`);
}

/** Now in milliseconds, from `now` (tests) or the system clock; a clock that gives no number cannot judge. */
function clockOf(now: (() => number) | undefined): number {
  const value = (now ?? Date.now)();
  if (typeof value !== 'number' || !Number.isFinite(value)) throw misconfigured(`now() must give milliseconds since 1970, not ${String(value)}`);
  return value;
}

// Bytes are decoded as they are: a leading byte order mark stays, since the signature covers it.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** The body as text; anything but raw bytes or a string is refused with what to pass instead. */
function rawBody(body: unknown): string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return utf8.decode(body);
  if (body instanceof ArrayBuffer) return utf8.decode(new Uint8Array(body));
  const what = body === undefined || body === null ? 'no body' : `a parsed ${Array.isArray(body) ? 'array' : typeof body}`;
  throw misconfigured(
    `verifyWebhook needs the raw body exactly as received (a string or Buffer), not ${what}: the signature covers the ` +
      `bytes. With Express use express.raw({ type: 'application/json' }) on this route instead of express.json().`,
  );
}

/** One signer per secret; a missing, empty or non-base64 secret is refused before any delivery is judged. */
function signersOf(secrets: unknown): Webhook[] {
  const list = Array.isArray(secrets) ? secrets : [secrets];
  if (list.length === 0) throw misconfigured('verifyWebhook needs the subscription\'s signing secret (whsec_...): secret is an empty list');
  return list.map((secret, i) => {
    const which = Array.isArray(secrets) ? `secret[${i}]` : 'secret';
    if (typeof secret !== 'string' || secret.trim() === '') {
      throw misconfigured(`verifyWebhook needs the subscription's signing secret (whsec_...): ${which} is ${secret === '' ? 'empty' : 'missing'}`);
    }
    const key = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
    if (key === '' || key.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(key)) {
      throw misconfigured(`${which} is not a signing secret: expected whsec_ followed by base64, as the subscription's secret is given`);
    }
    try {
      return new Webhook(secret);
    } catch (error) {
      throw misconfigured(`${which} is not a signing secret: ${(error as Error).message}`);
    }
  });
}

function headerReader(headers: HeaderBag): (name: string) => string | undefined {
  if (headers instanceof Headers) return (name) => headers.get(name) ?? undefined;
  const lower = new Map<string, string>();
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) lower.set(key.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
  }
  return (name) => lower.get(name);
}

function checkTimestamp(text: string, tolerance: number, nowMs: number): Date {
  const seconds = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  const nowSeconds = Math.floor(nowMs / 1000);
  // Written so that anything not comparable (NaN) is out of tolerance: the check passes only when it can judge.
  if (!Number.isSafeInteger(seconds) || !(Math.abs(nowSeconds - seconds) <= tolerance)) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `webhook-timestamp ${text} is more than ${tolerance} s away from now (${nowSeconds})`,
    );
  }
  return new Date(seconds * 1000);
}

function checkSignature(id: string, timestamp: Date, body: string, header: string, signers: Webhook[]): void {
  // Signatures are separated by spaces; a repeated webhook-signature header arrives joined with ", " (Node, fetch),
  // so a comma ending a signature is a separator too (base64 has no comma).
  const passed = header
    .split(/\s+/)
    .map((s) => s.replace(/,$/, ''))
    .filter((s) => s.startsWith('v1,'))
    .map((s) => s.slice(3));
  for (const signer of signers) {
    // standardwebhooks computes the HMAC; we compare ourselves so the tolerance stays ours.
    const expected = signer.sign(id, timestamp, body).slice(3);
    if (passed.some((signature) => constantTimeEqual(signature, expected))) return;
  }
  throw new WebhookVerificationError('bad_signature', 'no webhook-signature matches the secret');
}

function checkAuthorization(header: (name: string) => string | undefined, config: WebhookAuthorizationConfig): void {
  // Check every scheme before answering, so the time taken does not tell which one failed.
  let allPresent = true;
  for (const scheme of authorizationSchemes(config)) {
    const [name, expected] = expectedHeader(scheme);
    const received = header(name);
    const ok = received !== undefined && (constantTimeEqual(received, expected) || listContains(received, expected));
    allPresent = allPresent && ok;
  }
  if (!allPresent) throw new WebhookVerificationError('unauthorized', 'the delivery lacks the authorization configured on the subscription');
}

/**
 * The schemes of `authorization`, each complete; a scheme of another type, or with a value missing or empty, cannot
 * be checked and is a receiver mistake (otherwise `Bearer undefined` would be what a delivery must carry). An empty
 * list is refused too: given, `authorization` must ask for something.
 */
function authorizationSchemes(config: unknown): AuthScheme[] {
  const schemes: unknown[] = Array.isArray(config) ? config : [config];
  if (schemes.length === 0) throw misconfigured('authorization is an empty list: give the schemes configured on the subscription, or leave it out');
  return schemes.map((scheme, i) => {
    const where = Array.isArray(config) ? `authorization[${i}]` : 'authorization';
    const s = scheme as Record<string, unknown> | null;
    const filled = (...keys: string[]) => keys.every((key) => typeof s?.[key] === 'string' && (s[key] as string) !== '');
    const ok = s?.type === 'basic' ? filled('username', 'password') : s?.type === 'bearer' ? filled('token') : s?.type === 'header' ? filled('name', 'value') : false;
    if (!ok) throw misconfigured(`${where} is not a complete scheme: basic {username, password}, bearer {token} or header {name, value}`);
    return scheme as AuthScheme;
  });
}

type AuthScheme = components['schemas']['WebhookAuthScheme'];

function expectedHeader(scheme: AuthScheme): [string, string] {
  switch (scheme.type) {
    case 'basic':
      return ['authorization', `Basic ${base64(`${scheme.username}:${scheme.password}`)}`];
    case 'bearer':
      return ['authorization', `Bearer ${scheme.token}`];
    case 'header':
      return [scheme.name.toLowerCase(), scheme.value];
  }
}

/** Several schemes may share a header (basic and bearer both use Authorization); fetch joins repeats with ", ". */
function listContains(received: string, expected: string): boolean {
  let found = false;
  for (const part of received.split(', ')) found = constantTimeEqual(part, expected) || found;
  return found;
}

const encoder = new TextEncoder();

/**
 * Comparison whose time depends only on the length of `received`, never on where it first differs from `expected`.
 * Plain JavaScript, so the helper runs in Node, browsers and workers alike.
 */
function constantTimeEqual(received: string, expected: string): boolean {
  const a = encoder.encode(received);
  const b = encoder.encode(expected);
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) difference |= a[i] ^ (b.length > 0 ? b[i % b.length] : 0);
  return difference === 0;
}

/** Base64 of the UTF-8 bytes of a string (RFC 7617 user-id:password). */
function base64(text: string): string {
  let binary = '';
  for (const byte of encoder.encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function typedPayload(body: string): { eventType: CareWebhookEventType; payload: CareWebhookPayload } {
  let payload: unknown;
  try {
    // The signature covered the bytes as sent; JSON itself has no byte order mark, so one is skipped here only.
    payload = JSON.parse(body.charCodeAt(0) === 0xfeff ? body.slice(1) : body);
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'the delivery body is not JSON');
  }
  const meta = (payload as { meta?: { eventType?: unknown } } | null)?.meta;
  const eventType = meta?.eventType;
  if (typeof eventType !== 'string' || !(careWebhookEventTypes as readonly string[]).includes(eventType)) {
    throw new WebhookVerificationError('invalid_payload', `meta.eventType ${JSON.stringify(eventType)} is not an event type of the description`);
  }
  if (typeof (payload as { data?: unknown }).data !== 'object' || (payload as { data?: unknown }).data === null) {
    throw new WebhookVerificationError('invalid_payload', 'the delivery has no data object');
  }
  return { eventType: eventType as CareWebhookEventType, payload: payload as CareWebhookPayload };
}
