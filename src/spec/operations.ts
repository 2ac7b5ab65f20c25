// Every path item and method of `paths`, as OperationSpec.
import { deprecationHeaders, isComplete, readDeprecation } from './deprecation.ts';
import { isListParameters, readListSpec } from './list.ts';
import { deref } from './refs.ts';
import type { Environment, HttpMethod, OperationSpec, ResponseSpec } from './types.ts';

const METHODS: readonly HttpMethod[] = ['get', 'post', 'patch', 'put', 'delete'];
const ALL_ENVIRONMENTS: readonly Environment[] = ['production', 'sandbox'];

/** Environments the document serves: its servers' `x-care-environment`, or both when none say. */
function documentEnvironments(document: any): Environment[] {
  const declared = (document.servers ?? [])
    .map((server: any) => server?.['x-care-environment'])
    .filter((env: unknown): env is Environment => ALL_ENVIRONMENTS.includes(env as Environment));
  return declared.length > 0 ? [...new Set<Environment>(declared)] : [...ALL_ENVIRONMENTS];
}

function jsonSchemaOf(content: any): unknown {
  if (!content || typeof content !== 'object') return undefined;
  const jsonType = Object.keys(content).find((type) => type === 'application/json' || /\+json$/.test(type));
  return jsonType ? content[jsonType]?.schema : undefined;
}

function readResponses(document: any, responses: any): ResponseSpec[] {
  return Object.entries<any>(responses ?? {}).map(([status, responseOrRef]) => {
    const response = deref(document, responseOrRef) ?? {};
    const content = response.content ?? {};
    const schema = jsonSchemaOf(content);
    return {
      status: String(status),
      headers: Object.keys(response.headers ?? {}),
      contentTypes: Object.keys(content),
      ...(schema === undefined ? {} : { schema }),
    };
  });
}

/** Path-level parameters first, overridden by operation-level ones with the same name and location. */
function readParameters(document: any, pathItem: any, operation: any): OperationSpec['parameters'] {
  const merged = new Map<string, any>();
  for (const raw of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]) {
    const parameter = deref(document, raw);
    merged.set(`${parameter.in}:${parameter.name}`, parameter);
  }
  return [...merged.values()].map((p) => ({
    name: p.name,
    in: p.in,
    required: p.required === true,
    schema: p.schema,
    ...(p.style === undefined ? {} : { style: p.style }),
    ...(p.explode === undefined ? {} : { explode: p.explode }),
  }));
}

export function readOperations(document: any): OperationSpec[] {
  const fallbackEnvironments = documentEnvironments(document);
  const operations: OperationSpec[] = [];
  for (const [path, pathItemOrRef] of Object.entries<any>(document.paths ?? {})) {
    const pathItem = deref(document, pathItemOrRef);
    const environments: Environment[] = Array.isArray(pathItem['x-care-environments'])
      ? pathItem['x-care-environments']
      : fallbackEnvironments;
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (!operation) continue;
      const operationId: string = operation.operationId ?? `${method} ${path}`;
      const parameters = readParameters(document, pathItem, operation);
      const body = deref(document, operation.requestBody);
      const spec: OperationSpec = {
        operationId,
        method,
        path,
        tags: operation.tags ?? [],
        environments: [...environments],
        parameters,
        responses: readResponses(document, operation.responses),
      };
      if (body) {
        const schema = jsonSchemaOf(body.content) ?? Object.values<any>(body.content ?? {})[0]?.schema;
        spec.requestBody = {
          required: body.required === true,
          contentTypes: Object.keys(body.content ?? {}),
          ...(schema === undefined ? {} : { schema }),
        };
      }
      const deprecation = readDeprecation(operation);
      if (isComplete(deprecation)) spec.deprecation = deprecationHeaders(deprecation);
      if (isListParameters(parameters)) {
        spec.list = readListSpec(document, operationId, parameters, operation.responses);
      }
      operations.push(spec);
    }
  }
  return operations;
}
