// The suite never prints a secret: tokens, API-key secrets, webhook passwords and signing secrets are masked.

const SECRET_KEYS = new Set([
  'token', 'access_token', 'secret', 'apikeysecret', 'client_secret', 'password', 'signingsecret', 'value',
]);
export const MASK = '<redacted>';

/** Mask the value of an Authorization header, keeping its scheme so the curl line still reads right. */
export function redactAuthorization(value: string): string {
  const space = value.indexOf(' ');
  return space > 0 ? `${value.slice(0, space)} ${MASK}` : MASK;
}

/** Deep copy of a JSON value with secret-looking members masked (already-masked `********` is kept). */
export function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_KEYS.has(k.toLowerCase()) && typeof v === 'string' && v !== '********' ? MASK : redactJson(v);
    }
    return out;
  }
  return value;
}

/** Redact a body given as text: JSON is masked member by member, form bodies field by field. */
export function redactText(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.stringify(redactJson(JSON.parse(trimmed)));
    } catch {
      // not JSON after all: fall through to the pattern rules
    }
  }
  return text
    .replace(/(client_secret|access_token|token|password|secret)=[^&\s]*/gi, `$1=${MASK}`)
    .replace(/("(?:token|access_token|secret|password|signingSecret|apiKeySecret|client_secret)"\s*:\s*")[^"]*"/gi, `$1${MASK}"`)
    .replace(/whsec_[A-Za-z0-9+/=]+/g, `whsec_${MASK}`)
    .replace(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, MASK);
}
