// The description as the rest of the code sees it: read from the bundle, never listed by hand.

export type Environment = 'production' | 'sandbox';
export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** Value types a filterable field can have (`x-care-value-type` of the *FieldFilter schemas). */
export type ValueType = 'string' | 'integer' | 'datetime' | 'boolean' | 'stringArray';

/** How many values an operator takes (`x-care-operators` of the FilterOperator schema). */
export type Arity = 'none' | 'single' | 'field' | 'list' | 'pair';

export interface OperatorSpec {
  name: string;
  arity: Arity;
  /** The positive operator this one is the exact complement of, or null. */
  negationOf: string | null;
  summary: string;
}

export interface FilterFieldSpec {
  name: string;
  type: ValueType;
  /** Operators that apply to this field, in declaration order. */
  operators: string[];
  /** For operators whose operand names a field (`sameas`): the names the list's description allows (D-105). */
  operandNames: Record<string, string[]>;
}

export interface ListSpec {
  operationId: string;
  /** Name of the resource schema of `data` items, e.g. `Case`. */
  itemSchema: string;
  filterFields: Record<string, FilterFieldSpec>;
  /** Sortable field names (without the `-`). */
  sortFields: string[];
}

export interface ResponseSpec {
  status: string; // "200", "2XX", "default"
  headers: string[]; // declared header names
  contentTypes: string[];
  /** JSON schema of the body (refs left as `#/components/...`), if JSON. */
  schema?: unknown;
}

export interface OperationSpec {
  operationId: string;
  method: HttpMethod;
  /** Path relative to the server, e.g. `/cases/{caseId}`. */
  path: string;
  tags: string[];
  environments: Environment[];
  parameters: Array<{ name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: unknown; style?: string; explode?: boolean }>;
  requestBody?: { required: boolean; contentTypes: string[]; schema?: unknown };
  responses: ResponseSpec[];
  /** Present when the operation is `deprecated: true` with valid `x-care-deprecated-since` and `x-care-sunset`
   * (D-33): the values of its `Deprecation` and `Sunset` headers. */
  deprecation?: { Deprecation: string; Sunset: string };
  /** Present when the operation is a list (has page, sort and filter). */
  list?: ListSpec;
}

export interface CareSpec {
  /** The bundled OpenAPI document as parsed YAML. */
  document: any;
  operators: Record<string, OperatorSpec>;
  operations: OperationSpec[];
  operation(operationId: string): OperationSpec;
  /** Resolve a local `$ref` string (`#/components/schemas/Case`). */
  resolve(ref: string): any;
  /** The service-wide limits of the root `x-care-limits` (D-100); throws when the document declares none. */
  readonly limits: import('./limits.ts').ServiceLimits;
  /** The webhook delivery schedule of the root `x-care-deliveries` (D-17); throws when the document declares none. */
  readonly deliveries: import('./deliveries.ts').DeliverySchedule;
}
