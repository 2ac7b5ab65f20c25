// The URL of a resource a POST created (decision D-74): `Location` is an absolute path with the full base
// (`/care/v0/sandbox/cases/CS…`), to be resolved against the request URL as RFC 9110 section 10.2.2 says, never
// appended to the client's base URL.

/**
 * The absolute URL of the created resource, or null when the answer has no `Location`. `requestUrl` defaults to
 * `response.url` (set by fetch); give it when your fetch builds responses without one.
 */
export function createdLocation(response: Response, requestUrl: string = response.url): string | null {
  const location = response.headers.get('location');
  if (!location) return null;
  if (!requestUrl) throw new TypeError('createdLocation: the response has no url; pass the request URL');
  return new URL(location, requestUrl).href;
}
