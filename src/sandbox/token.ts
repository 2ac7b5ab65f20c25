// POST /auth/v2/oauth/token: the client-credentials grant of D-13, form or JSON body (or HTTP Basic client
// authentication), answered in OAuth 2.0's own format (RFC 6749 section 5).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OAuthError } from './auth.ts';
import type { Auth } from './auth.ts';
import { readBody } from '../edge/body.ts';
import type { ServiceLimits } from '../spec/index.ts';
import { readJson } from './http/body.ts';
import { ApiError, sendJson } from './http/envelope.ts';

/**
 * A form body's parameters; each at most once (RFC 6749 section 3.2: "MUST NOT be included more than once"). A body
 * over the form limit of x-care-limits is refused, read to its end up to the drain cap (D-100).
 */
async function readForm(req: IncomingMessage, limits: ServiceLimits): Promise<Record<string, unknown>> {
  const limit = limits.bodyBytes['application/x-www-form-urlencoded'];
  const bytes = await readBody(req, limit);
  if (bytes === 'too-large') throw new OAuthError(400, 'invalid_request', `the body is larger than ${limit} bytes`);
  const form: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(bytes.toString('utf8'))) {
    if (Object.hasOwn(form, name)) throw new OAuthError(400, 'invalid_request', `parameter ${name} is given more than once`);
    Object.defineProperty(form, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return form;
}

/** The client id and secret of `Authorization: Basic`, each form-urlencoded before encoding (RFC 6749 2.3.1). */
function basicCredentials(header: string | undefined): { client_id: string; client_secret: string } | undefined {
  const basic = /^Basic\s+(.+)$/i.exec(header ?? '');
  if (!basic) return undefined;
  const text = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) throw new OAuthError(400, 'invalid_request', 'Basic credentials must be client_id:client_secret');
  try {
    return { client_id: decodeURIComponent(text.slice(0, colon)), client_secret: decodeURIComponent(text.slice(colon + 1)) };
  } catch {
    throw new OAuthError(400, 'invalid_request', 'Basic credentials hold a malformed percent-escape');
  }
}

export async function handleToken(auth: Auth, limits: ServiceLimits, req: IncomingMessage, res: ServerResponse, log: (line: string) => void): Promise<void> {
  const noStore = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
  try {
    if (req.method !== 'POST') throw new OAuthError(405, 'invalid_request', 'use POST');
    const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    let form: Record<string, unknown>;
    if (type === 'application/json') {
      const json = await readJson(req, limits).catch((error) => {
        if (error instanceof ApiError) throw new OAuthError(400, 'invalid_request', error.problems.map((p) => p.detail).join('; '));
        throw error;
      });
      form = json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
    } else {
      form = await readForm(req, limits);
    }
    // HTTP Basic client authentication is the other way RFC 6749 allows to send the client credentials.
    const basic = basicCredentials(req.headers.authorization);
    if (basic && !form.client_id) form = { ...form, ...basic };
    sendJson(res, 200, await auth.exchange(form), noStore);
  } catch (error) {
    if (!(error instanceof OAuthError)) log(`[care-sandbox] token: ${(error as Error)?.stack}`);
    const e = error instanceof OAuthError ? error : new OAuthError(500, 'server_error', 'unexpected failure');
    if (!req.readableEnded) req.resume();
    const headers: Record<string, string> = { ...noStore };
    if (e.status === 401) headers['WWW-Authenticate'] = 'Basic realm="care-auth"';
    if (e.status === 405) headers.Allow = 'POST';
    sendJson(res, e.status, { error: e.error, error_description: e.description }, headers);
  }
}
