// POST /auth/v2/oauth/token: the client-credentials grant of D-13, form or JSON body (or HTTP Basic client
// authentication), answered in OAuth 2.0's own format (RFC 6749 section 5).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OAuthError } from '../auth.ts';
import type { Auth } from '../auth.ts';
import { readJson } from './body.ts';
import { sendJson } from './envelope.ts';

export async function handleToken(auth: Auth, req: IncomingMessage, res: ServerResponse, log: (line: string) => void): Promise<void> {
  const noStore = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
  try {
    if (req.method !== 'POST') throw new OAuthError(405, 'invalid_request', 'use POST');
    const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    let form: Record<string, unknown>;
    if (type === 'application/json') {
      const json = await readJson(req).catch(() => undefined);
      form = json && typeof json === 'object' ? (json as Record<string, unknown>) : {};
    } else {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of req) {
        size += chunk.length;
        if (size <= 64 * 1024) chunks.push(chunk);
      }
      form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    }
    // HTTP Basic client authentication is the other way RFC 6749 allows to send the client credentials.
    const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '');
    if (basic && !form.client_id) {
      const [id, secret] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
      form = { ...form, client_id: decodeURIComponent(id ?? ''), client_secret: decodeURIComponent(secret ?? '') };
    }
    sendJson(res, 200, await auth.exchange(form), noStore);
  } catch (error) {
    if (!(error instanceof OAuthError)) log(`[care-sandbox] token: ${(error as Error)?.stack}`);
    const e = error instanceof OAuthError ? error : new OAuthError(500, 'server_error', 'unexpected failure');
    sendJson(res, e.status, { error: e.error, error_description: e.description }, { ...noStore, ...(e.status === 401 ? { 'WWW-Authenticate': 'Basic realm="care-auth"' } : {}) });
  }
}
