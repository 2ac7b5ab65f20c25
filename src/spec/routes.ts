// Route matching, compiled once from the description: the sandbox and the mock front both route with this (D-95),
// so they cannot disagree on which operation a method and path reach, on 405 and its Allow, or on 404.
import type { CareSpec, Environment, OperationSpec } from './types.ts';

/** Base path of each environment the document serves: the path of its servers' URLs (`x-care-environment`). */
export type BasePaths = Partial<Record<Environment, string>>;

const basePathCache = new WeakMap<object, BasePaths>();

export function basePaths(document: any): BasePaths {
  const known = basePathCache.get(document);
  if (known) return known;
  const bases: BasePaths = {};
  for (const server of document?.servers ?? []) {
    const env = server?.['x-care-environment'] as Environment | undefined;
    if (env !== 'production' && env !== 'sandbox') continue;
    bases[env] = String(server.url ?? '').replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').replace(/\/+$/, '');
  }
  basePathCache.set(document, bases);
  return bases;
}

export interface Route {
  env: Environment;
  operation: OperationSpec;
  /** Matches the path below the environment's base path. */
  pattern: RegExp;
  paramNames: string[];
  /** Literal characters in the template: more literal wins over a parameter (`/events/case.updated` over `/events/{eventId}`). */
  literalWeight: number;
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method'; env: Environment; allow: string[] }
  | { kind: 'malformed'; env: Environment }
  | { kind: 'none'; env: Environment | null };

export interface Router {
  bases: BasePaths;
  routes: Route[];
  /** The environment a path belongs to by its base path (or the bare environment), else null. */
  environmentOf(pathname: string): Environment | null;
  match(method: string, pathname: string): RouteMatch;
}

export interface RouterOptions {
  /** Paths under no base path belong to this environment (the mock: `/cases` as well as `/care/v0/sandbox/cases`). */
  bare?: Environment;
}

/** Is every `%` of the path a complete escape of UTF-8 bytes? (`%zz`, `%A`, `%C3%28` are not: 400, D-69.) */
function decodable(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

function compile(env: Environment, operation: OperationSpec): Route {
  const paramNames: string[] = [];
  const source = operation.path
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const param = /^\{([^}]+)\}$/.exec(part);
      if (param) {
        paramNames.push(param[1]);
        return '([^/]+)';
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return { env, operation, pattern: new RegExp(`^${source}/?$`), paramNames, literalWeight: operation.path.replace(/\{[^}]+\}/g, '').length };
}

export function createRouter(spec: Pick<CareSpec, 'document' | 'operations'>, options: RouterOptions = {}): Router {
  const bases = basePaths(spec.document);
  // the longest base first: `/care/v0/sandbox/cases` is the sandbox's, not production's `/sandbox/cases`
  const byLength = (Object.entries(bases) as Array<[Environment, string]>).sort((a, b) => b[1].length - a[1].length);
  const routes = spec.operations.flatMap((op) => op.environments.filter((env) => bases[env] !== undefined).map((env) => compile(env, op)));
  routes.sort((a, b) => b.literalWeight - a.literalWeight);

  /** The environment and the path below its base. */
  const split = (pathname: string): { env: Environment; rest: string } | null => {
    for (const [env, base] of byLength) {
      if (pathname === base || pathname.startsWith(base + '/')) return { env, rest: pathname.slice(base.length) || '/' };
    }
    return options.bare ? { env: options.bare, rest: pathname } : null;
  };

  return {
    bases,
    routes,
    environmentOf: (pathname) => split(pathname)?.env ?? null,
    match(method, pathname) {
      const where = split(pathname);
      if (!where) return { kind: 'none', env: null };
      const { env, rest } = where;
      if (!decodable(pathname)) return { kind: 'malformed', env };
      // HEAD is served wherever GET is, by the GET operation (Node sends its headers without the body; D-69).
      const wanted = method.toUpperCase() === 'HEAD' ? 'get' : method.toLowerCase();
      const allow = new Set<string>();
      // The most literal template that matches the path owns it: GET on a trigger path (`/events/case.updated`) is a
      // 405 there, not a read of an event by that id.
      let template: string | undefined;
      for (const route of routes) {
        if (route.env !== env) continue;
        if (template !== undefined && route.operation.path !== template) continue;
        const m = route.pattern.exec(rest);
        if (!m) continue;
        template = route.operation.path;
        if (route.operation.method === wanted) {
          const params: Record<string, string> = {};
          route.paramNames.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1])));
          return { kind: 'found', route, params };
        }
        allow.add(route.operation.method.toUpperCase());
        if (route.operation.method === 'get') allow.add('HEAD');
      }
      if (allow.size > 0) return { kind: 'method', env, allow: [...allow].sort() };
      return { kind: 'none', env };
    },
  };
}

/**
 * The request target as a URL on a placeholder origin, or null when it is neither origin-form nor absolute-form
 * HTTP (RFC 9112 section 3.2): `GET http://host/care/v0/cases` is served as `GET /care/v0/cases`.
 */
export function requestTarget(target: string | undefined): URL | null {
  const text = target ?? '/';
  // `//x` is a path here, not a network-path reference to host x: resolve it as a path.
  if (text.startsWith('/')) {
    const url = URL.canParse(`http://target.invalid${text}`) ? new URL(`http://target.invalid${text}`) : null;
    return url && url.host === 'target.invalid' ? url : null;
  }
  if (!/^https?:\/\//i.test(text) || !URL.canParse(text)) return null;
  const absolute = new URL(text);
  return new URL(absolute.pathname + absolute.search, 'http://target.invalid');
}
