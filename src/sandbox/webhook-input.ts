// Webhook subscription inputs no delivery can honour (D-16): a URL with user information (never sent, and it would
// be answered in clear in every GET and list) and a basic-auth user name with `:` (RFC 7617 splits user name and
// password at the first colon, so the receiver would read other credentials than the ones configured).
import type { Problem } from './http/envelope.ts';

export function webhookInputProblems(body: Record<string, any>): Problem[] {
  const problems: Problem[] = [];
  if (typeof body.url === 'string' && URL.canParse(body.url)) {
    const url = new URL(body.url); // the WHATWG reading is the one a delivery would use
    if (url.username !== '' || url.password !== '') {
      problems.push({ detail: 'body.url: a URL with user information (user:password@) is not allowed; put credentials in body.authorization', code: 'value_error' });
    }
  }
  const list = Array.isArray(body.authorization);
  const schemes: unknown[] = list ? body.authorization : body.authorization == null ? [] : [body.authorization];
  schemes.forEach((scheme: any, i) => {
    if (scheme?.type === 'basic' && typeof scheme.username === 'string' && scheme.username.includes(':')) {
      problems.push({ detail: `body.authorization.${list ? `${i}.` : ''}username: a user name cannot contain ':' (RFC 7617)`, code: 'value_error' });
    }
  });
  return problems;
}
