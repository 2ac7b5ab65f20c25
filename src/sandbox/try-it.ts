// /docs/try-it.json: the demo keys the docs' API console exchanges for tokens (D-92). The sandbox prints the same
// keys at start; they open demo data only. The console reads them only from the sandbox that serves it, and no page of
// another site can (D-111); a hosted sandbox serves none unless told (D-113).
import type { ServerResponse } from 'node:http';
import type { DemoCredentials } from './seed.ts';

export const TRY_IT_PATH = '/docs/try-it.json';

/** The customer demo key of each environment, as the console needs it. */
export function tryItConfig(demo: DemoCredentials) {
  const key = (environment: 'sandbox' | 'production') => ({
    name: demo[environment].customer.name,
    keyId: demo[environment].customer.apiKeyId,
    secret: demo[environment].customer.apiKeySecret,
  });
  return { sandbox: key('sandbox'), production: key('production') };
}

/** What a hosted sandbox answers instead (D-113): no keys; the console asks the visitor for one. */
export const ASK_FOR_KEY = { sandbox: null, production: null, ask: 'This sandbox is hosted: enter the API key you were given.' };

/** Answers GET /docs/try-it.json, with the demo keys or, when `demo` is null, none; false for any other path. */
export function serveTryIt(pathname: string, demo: DemoCredentials | null, res: ServerResponse): boolean {
  if (pathname !== TRY_IT_PATH) return false;
  const text = JSON.stringify(demo ? tryItConfig(demo) : ASK_FOR_KEY);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-store' });
  res.end(text);
  return true;
}
