// Routes from the description's operations: each operation under the base path of every environment it declares.
import type { Environment, OperationSpec } from '../../spec/types.ts';

export const BASE_PATHS: Record<Environment, string> = {
  production: '/care/v0',
  sandbox: '/care/v0/sandbox',
};

export interface Route {
  env: Environment;
  operation: OperationSpec;
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
  const source = (BASE_PATHS[env] + operation.path)
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
  return {
    env,
    operation,
    pattern: new RegExp(`^${source}/?$`),
    paramNames,
    literalWeight: operation.path.replace(/\{[^}]+\}/g, '').length,
  };
}

/** The environment a path belongs to by its prefix, or null. */
export function environmentOf(pathname: string): Environment | null {
  if (pathname === BASE_PATHS.sandbox || pathname.startsWith(BASE_PATHS.sandbox + '/')) return 'sandbox';
  if (pathname === BASE_PATHS.production || pathname.startsWith(BASE_PATHS.production + '/')) return 'production';
  return null;
}

export function createRouter(operations: OperationSpec[]) {
  const routes = operations.flatMap((op) => op.environments.map((env) => compile(env, op)));
  routes.sort((a, b) => b.literalWeight - a.literalWeight);

  return {
    routes,
    match(method: string, pathname: string): RouteMatch {
      const env = environmentOf(pathname);
      if (!env) return { kind: 'none', env: null };
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
        const m = route.pattern.exec(pathname);
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
