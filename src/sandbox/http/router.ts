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
  | { kind: 'none'; env: Environment | null };

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
      const allow = new Set<string>();
      for (const route of routes) {
        if (route.env !== env) continue;
        const m = route.pattern.exec(pathname);
        if (!m) continue;
        if (route.operation.method === method.toLowerCase()) {
          const params: Record<string, string> = {};
          let ok = true;
          route.paramNames.forEach((name, i) => {
            try {
              params[name] = decodeURIComponent(m[i + 1]);
            } catch {
              ok = false;
            }
          });
          if (ok) return { kind: 'found', route, params };
        }
        allow.add(route.operation.method.toUpperCase());
      }
      if (allow.size > 0) return { kind: 'method', env, allow: [...allow].sort() };
      return { kind: 'none', env };
    },
  };
}
