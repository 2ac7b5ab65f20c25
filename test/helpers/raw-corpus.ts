// The raw-socket corpus of malformed HTTP (bad escapes, NUL, invalid UTF-8, over-long paths, queries and headers,
// odd methods, bodies that are not what they claim, huge bodies, a header flood), shared by the attack on the mocks
// (test/mock.attack.test.ts) and the comparison of the mocks with the sandbox (test/mock.differential.test.ts).
import { connect } from 'node:net';

export interface RawRequest {
  what: string;
  bytes: Buffer;
  head?: boolean;
}

export interface RawTarget {
  /** Put before every path (`/care/v0/sandbox`); none for the mock's bare paths. */
  base?: string;
  /** The bearer token sent. */
  token?: string;
  /** A case id the requests name. */
  caseId?: string;
}

export function rawCorpus(target: RawTarget = {}): RawRequest[] {
  const base = target.base ?? '';
  const caseId = target.caseId ?? 'CS0010042';
  const auth = `Authorization: Bearer ${target.token ?? 'mock-token'}`;
  const crlf = (lines: string[]) => lines.join('\r\n');
  const request = (line: string, headers: string[] = [], body: Buffer | string = '') =>
    Buffer.concat([Buffer.from(crlf([line, 'Host: localhost', auth, 'Connection: close', ...headers, '', '']), 'latin1'), Buffer.from(body)]);
  const json = (body: Buffer | string) => [`Content-Type: application/json`, `Content-Length: ${Buffer.byteLength(body)}`];
  const out: RawRequest[] = [
    { what: 'path %zz', bytes: request(`GET ${base}/cases/%zz HTTP/1.1`) },
    { what: 'path cut escape', bytes: request(`GET ${base}/cases/%A HTTP/1.1`) },
    { what: 'path escapes not UTF-8', bytes: request(`GET ${base}/cases/%C3%28 HTTP/1.1`) },
    { what: 'path lone %', bytes: request(`GET ${base}/cases/% HTTP/1.1`) },
    { what: 'path %00', bytes: request(`GET ${base}/cases/a%00b HTTP/1.1`) },
    { what: 'query %zz', bytes: request(`GET ${base}/cases?filter%zz=1 HTTP/1.1`) },
    { what: 'query not UTF-8', bytes: request(`GET ${base}/cases?filter[status]=%C3%28 HTTP/1.1`) },
    { what: 'raw NUL in path', bytes: request(`GET ${base}/cases/a\u0000b HTTP/1.1`) },
    { what: 'raw invalid UTF-8 in path', bytes: Buffer.concat([Buffer.from(`GET ${base}/cases/`), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(` HTTP/1.1\r\nHost: localhost\r\n${auth}\r\nConnection: close\r\n\r\n`)]) },
    { what: 'raw invalid UTF-8 in query', bytes: Buffer.concat([Buffer.from(`GET ${base}/cases?filter[shortDescription]=`), Buffer.from([0xc3, 0x28, 0xa0]), Buffer.from(` HTTP/1.1\r\nHost: localhost\r\n${auth}\r\nConnection: close\r\n\r\n`)]) },
    { what: 'over-long path', bytes: request(`GET ${base}/cases/${'x'.repeat(20_000)} HTTP/1.1`) },
    { what: 'long path under the limit', bytes: request(`GET ${base}/cases/${'x'.repeat(12_000)} HTTP/1.1`) },
    { what: 'over-long query', bytes: request(`GET ${base}/cases?filter[shortDescription][contains]=${'y'.repeat(20_000)} HTTP/1.1`) },
    { what: 'over-long header', bytes: request(`GET ${base}/cases HTTP/1.1`, [`X-Long: ${'z'.repeat(20_000)}`]) },
    { what: 'header flood', bytes: request(`GET ${base}/cases HTTP/1.1`, Array.from({ length: 3000 }, (_, i) => `X-H${i}: v`)) },
    { what: 'many small headers under the limit', bytes: request(`GET ${base}/cases HTTP/1.1`, Array.from({ length: 500 }, (_, i) => `X-${i}: v`)) },
    { what: 'NUL in a header', bytes: request(`GET ${base}/cases HTTP/1.1`, ['X-Bad: a\u0000b']) },
    { what: 'malformed Accept', bytes: request(`GET ${base}/cases HTTP/1.1`, ['Accept: ;;;q=x']) },
    { what: 'Accept ;', bytes: request(`GET ${base}/cases HTTP/1.1`, ['Accept: ;']) },
    { what: 'garbage Prefer', bytes: request(`GET ${base}/cases HTTP/1.1`, ['Prefer: code=abc, example=???']) },
    { what: 'garbage request line', bytes: Buffer.from('HELLO\r\n\r\n') },
    { what: 'HTTP/0.9 style', bytes: Buffer.from(`GET ${base}/cases\r\n\r\n`) },
    { what: 'unknown method', bytes: request(`FOO ${base}/cases HTTP/1.1`) },
    { what: 'CONNECT', bytes: request('CONNECT 127.0.0.1:9 HTTP/1.1') },
    { what: 'an Expect other than 100-continue (417)', bytes: request(`POST ${base}/cases HTTP/1.1`, ['Expect: foo', ...json('{}')], '{}') },
    { what: 'two Host lines (400)', bytes: request(`GET ${base}/cases HTTP/1.1`, ['Host: other.example']) },
    { what: 'HEAD', bytes: request(`HEAD ${base}/cases HTTP/1.1`), head: true },
    { what: 'HEAD malformed path', bytes: request(`HEAD ${base}/cases/%zz HTTP/1.1`), head: true },
    { what: 'TRACE', bytes: request(`TRACE ${base}/cases HTTP/1.1`) },
    { what: 'PROPFIND', bytes: request(`PROPFIND ${base}/cases HTTP/1.1`) },
    { what: 'PURGE', bytes: request(`PURGE ${base}/cases/${caseId} HTTP/1.1`) },
    { what: 'OPTIONS', bytes: request(`OPTIONS ${base}/cases HTTP/1.1`) },
    { what: 'DELETE on a list', bytes: request(`DELETE ${base}/cases HTTP/1.1`) },
    { what: 'absolute-form target', bytes: request(`GET http://localhost${base}/cases HTTP/1.1`) },
    { what: 'asterisk target', bytes: request('GET * HTTP/1.1') },
    { what: 'non-JSON body', bytes: request(`POST ${base}/cases HTTP/1.1`, json('this is not json'), 'this is not json') },
    { what: 'JSON body not UTF-8', bytes: request(`POST ${base}/cases HTTP/1.1`, json(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])), Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])) },
    { what: 'deep JSON', bytes: request(`POST ${base}/cases HTTP/1.1`, json('['.repeat(5000) + ']'.repeat(5000)), '['.repeat(5000) + ']'.repeat(5000)) },
    { what: 'garbage content type', bytes: request(`POST ${base}/cases HTTP/1.1`, ['Content-Type: ;;;==', 'Content-Length: 2'], '{}') },
    { what: 'JSON with a bogus charset', bytes: request(`POST ${base}/cases HTTP/1.1`, ['Content-Type: application/json; charset=klingon', 'Content-Length: 2'], '{}') },
    { what: 'text body to a JSON operation', bytes: request(`PATCH ${base}/cases/${caseId} HTTP/1.1`, ['Content-Type: text/plain', 'Content-Length: 5'], 'hello') },
    { what: 'multipart without boundary', bytes: request(`POST ${base}/cases/${caseId}/attachments HTTP/1.1`, ['Content-Type: multipart/form-data', 'Content-Length: 5'], 'hello') },
    { what: 'multipart garbage', bytes: request(`POST ${base}/cases/${caseId}/attachments HTTP/1.1`, ['Content-Type: multipart/form-data; boundary=zz', 'Content-Length: 5'], 'hello') },
    { what: 'huge JSON body (3 MiB)', bytes: request(`POST ${base}/cases HTTP/1.1`, json(`{"description":"${'x'.repeat(3 * 1024 * 1024)}"}`), `{"description":"${'x'.repeat(3 * 1024 * 1024)}"}`) },
    { what: 'huge upload (11 MiB)', bytes: request(`POST ${base}/cases/${caseId}/attachments HTTP/1.1`, ['Content-Type: multipart/form-data; boundary=zz', `Content-Length: ${11 * 1024 * 1024}`], Buffer.alloc(11 * 1024 * 1024, 97)) },
    { what: 'body on a GET', bytes: request(`GET ${base}/cases HTTP/1.1`, json('{"a":1}'), '{"a":1}') },
    { what: 'malformed chunked body', bytes: request(`POST ${base}/cases HTTP/1.1`, ['Content-Type: application/json', 'Transfer-Encoding: chunked'], 'zz\r\n{}\r\n0\r\n\r\n') },
    { what: 'both Content-Length and chunked', bytes: request(`POST ${base}/cases HTTP/1.1`, ['Content-Type: application/json', 'Content-Length: 2', 'Transfer-Encoding: chunked'], '2\r\n{}\r\n0\r\n\r\n') },
    { what: 'two Content-Lengths', bytes: request(`POST ${base}/cases HTTP/1.1`, ['Content-Type: application/json', 'Content-Length: 2', 'Content-Length: 3'], '{} ') },
  ];
  return out;
}

/** One raw request on its own connection; the answer read to the close (every request says Connection: close). */
export function sendRaw(port: number, bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks)));
    socket.on('error', () => {}); // a reset after the answer (the server stops reading a huge body): the answer counts
    socket.write(bytes); // not end(): a half-closed request is dropped by Node's server before it is answered
  });
}

