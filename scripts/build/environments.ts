// Step: derive one document per environment from the complete bundle, by the description's own markers:
// `x-care-environments` on path items (and operations, webhooks) says where they exist; `x-care-environment`
// on each server says which environment it serves. The env header keeps only that environment's value.
import type { BuildContext, BuildStep, Environment } from './context.ts';
import { useEnvironmentExamples } from './environment-examples.ts';
import { toYaml } from './yaml-out.ts';

export const ENV_HEADER = 'X-CareAPI-Env';
export const ENVIRONMENTS: Environment[] = ['production', 'sandbox'];
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function environmentBundleName(environment: Environment): string {
  return `care-api.${environment}.yaml`;
}

/** The document one environment serves; `complete` is left untouched. */
export function environmentDocument(complete: any, environment: Environment): any {
  const document = structuredClone(complete);
  const existsIn = (node: any) => {
    const list = node?.['x-care-environments'];
    return !Array.isArray(list) || list.includes(environment);
  };

  document.servers = (document.servers ?? []).filter((server: any) => server['x-care-environment'] === environment);
  if (document.servers.length === 0) throw new Error(`no server has x-care-environment: ${environment}`);

  for (const map of [document.paths ?? {}, document.webhooks ?? {}]) {
    for (const [key, pathItem] of Object.entries<any>(map)) {
      if (!existsIn(pathItem)) {
        delete map[key];
        continue;
      }
      for (const method of METHODS) if (pathItem[method] && !existsIn(pathItem[method])) delete pathItem[method];
      if (!METHODS.some((method) => pathItem[method])) delete map[key];
    }
  }

  narrowEnvHeader(document, environment);
  useEnvironmentExamples(document, environment);
  removeUnusedComponents(document);
  removeUnusedTags(document);
  return document;
}

/** `X-CareAPI-Env` (response header and webhook request parameter) allows only this environment's value. */
function narrowEnvHeader(document: any, environment: Environment): void {
  const narrow = (holder: any) => {
    const schema = holder.schema ?? {};
    const values: unknown[] = Array.isArray(schema.enum) ? schema.enum : [];
    const value = values.find((v) => typeof v === 'string' && v.toLowerCase() === environment);
    if (typeof value !== 'string') throw new Error(`${ENV_HEADER} declares no value for ${environment}: ${JSON.stringify(values)}`);
    holder.schema = { ...schema, enum: [value] };
    if ('example' in holder.schema) holder.schema.example = value;
    if ('default' in holder.schema) holder.schema.default = value;
    holder.example = value;
    delete holder.examples;
  };
  walk(document, (node, key, parentKey) => {
    if (parentKey === 'headers' && key.toLowerCase() === ENV_HEADER.toLowerCase() && !node.$ref) narrow(node);
    if (node.in === 'header' && typeof node.name === 'string' && node.name.toLowerCase() === ENV_HEADER.toLowerCase() && !node.$ref) narrow(node);
  });
}

/** Drops components no longer reachable from paths, webhooks or the root (security schemes are kept). */
function removeUnusedComponents(document: any): void {
  const components = document.components ?? {};
  const refName = (ref: string) => {
    const match = /^#\/components\/([^/]+)\/([^/]+)$/.exec(ref);
    return match ? `${match[1]}/${decodeURIComponent(match[2].replace(/~1/g, '/').replace(/~0/g, '~'))}` : null;
  };
  const reachable = new Set<string>();
  const queue: unknown[] = [{ ...document, components: undefined }];
  while (queue.length > 0) {
    walk(queue.pop(), (node) => {
      if (typeof node.$ref !== 'string') return;
      const name = refName(node.$ref);
      if (!name || reachable.has(name)) return;
      reachable.add(name);
      const [kind, key] = name.split('/');
      queue.push(components[kind]?.[key]);
    });
  }
  for (const kind of Object.keys(components)) {
    if (kind === 'securitySchemes') continue;
    for (const key of Object.keys(components[kind])) if (!reachable.has(`${kind}/${key}`)) delete components[kind][key];
    if (Object.keys(components[kind]).length === 0) delete components[kind];
  }
}

/** Drops tags (and tag groups) that no remaining operation uses, so the docs show no empty section. */
function removeUnusedTags(document: any): void {
  const used = new Set<string>();
  for (const map of [document.paths ?? {}, document.webhooks ?? {}]) {
    for (const pathItem of Object.values<any>(map)) {
      for (const method of METHODS) for (const tag of pathItem[method]?.tags ?? []) used.add(tag);
    }
  }
  if (Array.isArray(document.tags)) document.tags = document.tags.filter((tag: any) => used.has(tag.name) || tag['x-traitTag']);
  const kept = new Set((document.tags ?? []).map((tag: any) => tag.name));
  if (Array.isArray(document['x-tagGroups'])) {
    document['x-tagGroups'] = document['x-tagGroups']
      .map((group: any) => ({ ...group, tags: (group.tags ?? []).filter((tag: string) => kept.has(tag)) }))
      .filter((group: any) => group.tags.length > 0);
  }
}

/** Visits every object of `value` with its key and its parent's key. */
function walk(value: unknown, visit: (node: any, key: string, parentKey: string) => void): void {
  const stack: Array<[unknown, string, string]> = [[value, '', '']];
  while (stack.length > 0) {
    const [node, key, parentKey] = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    if (!Array.isArray(node)) visit(node, key, parentKey);
    for (const [childKey, child] of Object.entries(node)) stack.push([child, childKey, key]);
  }
}

export const environmentsStep: BuildStep = {
  name: `bundle ${ENVIRONMENTS.map(environmentBundleName).join(', ')}`,
  run(context: BuildContext) {
    const complete = context.documents.complete;
    if (!complete) throw new Error('the complete bundle must be built first');
    for (const environment of ENVIRONMENTS) {
      const document = environmentDocument(complete, environment);
      context.documents[environment] = document;
      context.write(environmentBundleName(environment), toYaml(document));
    }
  },
};
