// The client's short path for body-less requests answers exactly what openapi-fetch's own request function answers,
// and sends exactly the same request: both against one real HTTP server on 127.0.0.1.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlainRequest } from '../src/client/plain-request.ts';
import { serializeQuery } from '../src/client/query.ts';
import { sendShort, takesShortPath, type ShortInit } from '../src/client/short-path.ts';

let server: Server;
let baseUrl: string;
const received: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)}`);
    const route = new URL(req.url!, 'http://x').pathname.split('/')[1];
    if (route === 'json') res.writeHead(200, { 'content-type': 'application/json', 'content-length': 11 }).end('{"a":[1,2]}');
    else if (route === 'chunked') res.writeHead(200, { 'content-type': 'application/json' }).end('{"b":"ü"}');
    else if (route === 'chunked-empty') res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }).end();
    else if (route === 'zero') res.writeHead(200, { 'content-length': 0 }).end();
    else if (route === 'no-content') res.writeHead(204).end();
    else if (route === 'envelope') res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[{"status":"404","title":"Not Found","detail":"no","code":"NOT_FOUND"}]}');
    else if (route === 'text-error') res.writeHead(500, { 'content-type': 'text/plain' }).end('oops');
    else if (route === 'empty-error') res.writeHead(503, { 'content-length': 0 }).end();
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('plain text');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const clientHeaders = { 'x-client': 'c', 'x-removed': 'r' };

/** openapi-fetch as a user would set it up, with our query serializer: the reference. */
function reference(headers: Record<string, string> | undefined = clientHeaders) {
  const authorized = (request: Request) => {
    request.headers.set('authorization', 'Bearer t');
    return fetch(request);
  };
  return createClient<any>({ baseUrl, querySerializer: serializeQuery, headers, fetch: authorized });
}

/** The short path, setting a header the way the client's authentication does. */
function short(method: string, path: string, init?: ShortInit, headers: Record<string, string> | undefined = clientHeaders) {
  const send = (request: PlainRequest) => {
    request.setHeader('Authorization', 'Bearer t');
    return fetch(request.url, request.init);
  };
  return sendShort(method, path, init, { baseUrl, querySerializer: serializeQuery, headers, send });
}

/** A comparable view of an answer: status, and data or error read to the end whatever its form. */
async function view(answer: { data?: unknown; error?: unknown; response: Response }) {
  const readable = async (value: unknown) => {
    if (value instanceof ReadableStream) return `stream:${await new Response(value).text()}`;
    if (value instanceof Blob) return `blob:${value.type}:${await value.text()}`;
    if (value instanceof ArrayBuffer) return `bytes:${Buffer.from(value).toString('hex')}`;
    return value;
  };
  return {
    status: answer.response.status,
    hasData: 'data' in answer,
    hasError: 'error' in answer,
    data: await readable(answer.data),
    error: await readable(answer.error),
  };
}

async function both(method: 'GET' | 'DELETE' | 'POST', path: string, init?: ShortInit, headers: Record<string, string> | undefined = clientHeaders) {
  received.length = 0;
  const expected = await view(await (reference(headers)[method] as any)(path, init));
  const actual = await view(await short(method, path, init, headers));
  expect(received).toHaveLength(2);
  expect(received[1], 'the request sent').toBe(received[0]);
  return { expected, actual };
}

describe('short path for body-less requests', () => {
  const cases: Array<[string, 'GET' | 'DELETE' | 'POST', string, ShortInit | undefined]> = [
    ['JSON with a length', 'GET', '/json', undefined],
    ['JSON without a length (chunked)', 'GET', '/chunked', {}],
    ['an empty chunked body', 'GET', '/chunked-empty', {}],
    ['Content-Length 0', 'GET', '/zero', {}],
    ['204', 'DELETE', '/no-content', {}],
    ['an error envelope', 'GET', '/envelope', {}],
    ['a text error', 'GET', '/text-error', {}],
    ['an empty error', 'GET', '/empty-error', {}],
    ['POST without a body', 'POST', '/json', {}],
    ['parseAs text', 'GET', '/json', { parseAs: 'text' }],
    ['parseAs arrayBuffer', 'GET', '/json', { parseAs: 'arrayBuffer' }],
    ['parseAs blob', 'GET', '/json', { parseAs: 'blob' }],
    ['parseAs stream', 'GET', '/json', { parseAs: 'stream' }],
    ['parseAs text on a text answer', 'GET', '/other', { parseAs: 'text' }],
    [
      'path, query and header parameters with headers merged and removed',
      'GET',
      '/json/{id}/{kind}',
      {
        params: {
          path: { id: 'a b/ü', kind: 7 },
          query: { page: { number: 2, size: 5 }, sort: ['-createdAt'], filter: { status: { in: [1, 'a,b'] }, incident: { notNull: true } }, q: 'x&y' },
          header: { 'x-param': 3 },
        },
        headers: { 'x-call': 'k', 'x-removed': null } as never,
      },
    ],
  ];
  for (const [name, method, path, init] of cases) {
    it(`answers and sends as openapi-fetch does: ${name}`, async () => {
      const { expected, actual } = await both(method, path, init);
      expect(actual).toEqual(expected);
    });
  }

  it('sends the same request when there are no headers to merge (a plain record underneath)', async () => {
    const { expected, actual } = await both('GET', '/json', { params: { query: { q: 1 } } }, undefined);
    expect(actual).toEqual(expected);
    expect(received[0]).toContain('"authorization":"Bearer t"');
  });

  it('rejects an aborted request as openapi-fetch does', async () => {
    const signal = AbortSignal.abort();
    const expected = await (reference().GET as any)('/json', { signal }).catch((e: Error) => e.name);
    const actual = await short('GET', '/json', { signal }).catch((e: Error) => e.name);
    expect(expected).toBe('AbortError');
    expect(actual).toBe(expected);
  });

  it('is taken only for inits it handles exactly', () => {
    for (const init of [undefined, {}, { params: {} }, { headers: {}, parseAs: 'text', signal: null }]) expect(takesShortPath(init), JSON.stringify(init)).toBe(true);
    for (const init of [{ body: 'x' }, { body: undefined }, { fetch }, { baseUrl }, { querySerializer: () => '' }, { middleware: [] }, { cache: 'no-store' }, { params: {}, credentials: 'include' }]) {
      expect(takesShortPath(init), Object.keys(init).join()).toBe(false);
    }
  });
});
