// What openapi-fetch needs of a Request (url, method, headers, body), without building undici's Request: that
// costs about as much as the rest of the client together (bench/client-overhead.ts). Real Requests are made only
// when a caller's own fetch needs one.

export class PlainRequest {
  readonly url: string;
  readonly method: string;
  /** Headers, or a plain record when the short path had no headers to merge (one object fewer for fetch to copy). */
  readonly headers: Headers | Record<string, string>;
  /** The init openapi-fetch built; its body (string, FormData or Blob) can be sent again after a 401. */
  readonly init: RequestInit & { headers: Headers | Record<string, string> };

  constructor(input: string, init: RequestInit = {}) {
    this.url = input;
    this.method = (init.method ?? 'GET').toUpperCase();
    const given = init.headers;
    this.headers = given instanceof Headers || isPlainRecord(given) ? given : new Headers(given);
    // openapi-fetch builds a new init for every request, so it is kept as is rather than copied.
    init.headers = this.headers;
    this.init = init as RequestInit & { headers: Headers | Record<string, string> };
  }

  setHeader(name: string, value: string): void {
    if (this.headers instanceof Headers) this.headers.set(name, value);
    else this.headers[name.toLowerCase()] = value;
  }

  get body(): RequestInit['body'] {
    return this.init.body;
  }

  /** A real Request with the same contents, for a caller-supplied fetch. */
  toRequest(): Request {
    return new Request(this.url, this.init);
  }

  clone(): Request {
    return this.toRequest();
  }
}

function isPlainRecord(value: unknown): value is Record<string, string> {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}
