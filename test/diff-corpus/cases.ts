// The corpus of issue 9: small realistic edits of the description, applied in memory to the released bundle, each
// with the exact classification the diff must give: the set of (classification, rule) pairs it reports. Where
// one schema is used in several places (an event payload is also in the event log's responses) every place is
// expected. `test/diff.corpus.test.ts` runs them.
import type { Classification } from '../../src/diff/types.ts';

type Doc = any;
export interface CorpusCase {
  name: string;
  /** What the edit is, in the words of a pull request. */
  edit: (doc: Doc) => void;
  /** An edit of the released bundle made first, when the case starts from another form of it. */
  base?: (doc: Doc) => void;
  expected: Array<[Classification, string]>;
}

const schemas = (doc: Doc) => doc.components.schemas;
const op = (doc: Doc, path: string, method: string) => doc.paths[path][method];
const webhook = (doc: Doc, name: string) => doc.webhooks[name].post;
const B = 'breaking' as const;
const N = 'non-breaking' as const;
const D = 'documentation' as const;

/** CaseCreate.priority written inline: the `$ref` to CasePriority with its sibling description, expanded. */
function inlinePriority(d: Doc): void {
  const { $ref: _ref, ...siblings } = schemas(d).CaseCreate.properties.priority;
  schemas(d).CaseCreate.properties.priority = { ...structuredClone(schemas(d).CasePriority), ...siblings };
}

export const corpus: CorpusCase[] = [
  // Requests: what the client sends.
  { name: 'request: a new required body field', edit: (d) => schemas(d).CaseCreate.required.push('priority'), expected: [[B, 'request.body.required.added']] },
  { name: 'request: a new optional body field', edit: (d) => { schemas(d).CaseCreate.properties.category = { type: 'string', description: 'Category.', example: 'network' }; }, expected: [[N, 'request.body.property.added']] },
  { name: 'request: a body field no longer accepted (additionalProperties false)', edit: (d) => { delete schemas(d).WebhookCreate.properties.enabled; }, expected: [[B, 'request.body.property.removed']] },
  { name: 'request: a required body field becomes optional', edit: (d) => { schemas(d).CaseCreate.required = schemas(d).CaseCreate.required.filter((f: string) => f !== 'shortDescription'); }, expected: [[N, 'request.body.required.removed']] },
  { name: 'request: maxLength tightened', edit: (d) => { schemas(d).WebhookCreate.properties.url.maxLength = 512; }, expected: [[B, 'request.body.maxLength.changed']] },
  { name: 'request: maxLength relaxed', edit: (d) => { schemas(d).WebhookCreate.properties.url.maxLength = 4096; }, expected: [[N, 'request.body.maxLength.changed']] },
  { name: 'request: a new required query parameter', edit: (d) => { op(d, '/contracts', 'get').parameters.push({ name: 'customer', in: 'query', required: true, schema: { type: 'string' } }); }, expected: [[B, 'request.parameter.added']] },
  { name: 'request: a new optional query parameter', edit: (d) => { op(d, '/contracts', 'get').parameters.push({ name: 'customer', in: 'query', required: false, schema: { type: 'string' } }); }, expected: [[N, 'request.parameter.added']] },
  { name: 'request: request body no longer accepts JSON', edit: (d) => { const body = op(d, '/webhooks', 'post').requestBody; body.content = { 'application/merge-patch+json': body.content['application/json'] }; }, expected: [[B, 'request.body.content.removed'], [N, 'request.body.content.added']] },

  // Added whole (issue 38): an operation that had no parameter list or no body gains one; judged inside.
  { name: 'request: a required header on an operation that listed no parameters', edit: (d) => { op(d, '/cases', 'post').parameters = [{ name: 'X-Request-Id', in: 'header', required: true, description: 'Id.', schema: { type: 'string' } }]; }, expected: [[B, 'request.parameter.added']] },
  { name: 'request: an optional header on an operation that listed no parameters', edit: (d) => { op(d, '/cases', 'post').parameters = [{ name: 'X-Request-Id', in: 'header', required: false, description: 'Id.', schema: { type: 'string' } }]; }, expected: [[N, 'request.parameter.added']] },
  { name: 'request: a required path-level header on a trigger path', edit: (d) => { d.paths['/events/case.updated'].parameters = [{ name: 'X-Request-Id', in: 'header', required: true, description: 'Id.', schema: { type: 'string' } }]; }, expected: [[B, 'request.parameter.added']] },
  { name: 'request: a required and an optional parameter added as a new list', edit: (d) => { op(d, '/cases', 'post').parameters = [{ name: 'dryRun', in: 'query', required: false, schema: { type: 'boolean' } }, { name: 'X-Request-Id', in: 'header', required: true, schema: { type: 'string' } }]; }, expected: [[N, 'request.parameter.added'], [B, 'request.parameter.added']] },
  { name: 'request: a required body on an operation that had none', edit: (d) => { op(d, '/webhooks/{webhookId}', 'delete').requestBody = { required: true, content: { 'application/json': { schema: { type: 'object', required: ['reason'], properties: { reason: { type: 'string' } } } } } }; }, expected: [[B, 'request.body.added']] },
  { name: 'request: an optional body on an operation that had none', edit: (d) => { op(d, '/webhooks/{webhookId}', 'delete').requestBody = { required: false, content: { 'application/json': { schema: { type: 'object', properties: { reason: { type: 'string' } } } } } }; }, expected: [[N, 'request.body.added']] },
  { name: 'request: an optional query parameter becomes required', edit: (d) => { d.components.parameters.Page.required = true; }, expected: [[B, 'request.parameter.required.added']] },
  { name: 'request: a query parameter no longer accepted', edit: (d) => { op(d, '/contracts', 'get').parameters = op(d, '/contracts', 'get').parameters.filter((p: any) => !String(p.$ref).endsWith('/Page')); }, expected: [[B, 'request.parameter.removed']] },
  { name: 'request: a path parameter narrowed', edit: (d) => { d.components.parameters.CaseId.schema.maxLength = 10; }, expected: [[B, 'request.parameter.maxLength.changed']] },
  { name: 'request: a minLength tightened', edit: (d) => { schemas(d).CaseCreate.properties.shortDescription.minLength = 5; }, expected: [[B, 'request.body.minLength.changed']] },
  { name: 'request: a pattern dropped (wider)', edit: (d) => { delete schemas(d).FilterInteger.pattern; }, expected: [[N, 'request.parameter.pattern.removed']] },
  { name: 'request: duplicates refused in a sort (uniqueItems)', edit: (d) => { d.components.parameters.CaseSort.schema.uniqueItems = true; }, expected: [[B, 'request.parameter.uniqueItems.added']] },
  { name: 'request: a body default changed', edit: (d) => { schemas(d).WebhookCreate.properties.enabled.default = false; }, expected: [[B, 'request.body.default.changed']] },
  { name: 'request: a body field enum narrowed', edit: (d) => { schemas(d).CasePriority.enum = [1, 2, 3]; }, expected: [[B, 'request.body.enum.removed'], [B, 'response.body.enum.narrowed'], [B, 'event.body.enum.narrowed']] },
  { name: 'request: a parameter deprecated', edit: (d) => { d.components.parameters.Page.deprecated = true; }, expected: [[N, 'request.parameter.deprecated']] },

  // `$ref` with siblings and the identical inline schema (issue 38): a refactor, equal both ways; a change made in
  // the same edit is still judged by itself.
  { name: 'refactor: a request $ref with a sibling description written inline', edit: (d) => { const { $ref: _r, ...rest } = schemas(d).CaseCreate.properties.priority; schemas(d).CaseCreate.properties.priority = { ...structuredClone(schemas(d).CasePriority), ...rest }; }, expected: [] },
  { name: 'refactor: an inline request schema replaced by the identical $ref with a sibling', base: inlinePriority, edit: (d) => { schemas(d).CaseCreate.properties.priority = { $ref: '#/components/schemas/CasePriority', description: schemas(d).CaseCreate.properties.priority.description }; }, expected: [] },
  { name: 'refactor: an inline request schema replaced by the identical $ref with a sibling, its enum narrowed in the same edit', base: inlinePriority, edit: (d) => { schemas(d).CaseCreate.properties.priority = { $ref: '#/components/schemas/CasePriority', description: schemas(d).CaseCreate.properties.priority.description }; schemas(d).CasePriority.enum = [1, 2, 3]; }, expected: [[B, 'request.body.enum.removed'], [B, 'response.body.enum.narrowed'], [B, 'event.body.enum.narrowed']] },
  { name: 'refactor: a response $ref with siblings written inline', edit: (d) => { const { $ref: _r, ...rest } = schemas(d).Contract.properties.customer; schemas(d).Contract.properties.customer = { ...structuredClone(schemas(d).OrganisationRef), ...rest }; }, expected: [] },
  { name: 'refactor: a request $ref with a sibling written inline, its enum narrowed in the same edit', edit: (d) => { const { $ref: _r, ...rest } = schemas(d).CaseCreate.properties.priority; schemas(d).CaseCreate.properties.priority = { ...structuredClone(schemas(d).CasePriority), ...rest }; schemas(d).CaseCreate.properties.priority.enum = [1, 2, 3]; }, expected: [[B, 'request.body.enum.removed']] },
  { name: 'refactor: a request $ref with a sibling written inline, its enum widened in the same edit', edit: (d) => { const { $ref: _r, ...rest } = schemas(d).CaseCreate.properties.priority; schemas(d).CaseCreate.properties.priority = { ...structuredClone(schemas(d).CasePriority), ...rest }; schemas(d).CaseCreate.properties.priority.enum.push(5); }, expected: [[N, 'request.body.enum.added']] },
  { name: 'refactor: a response $ref with siblings written inline, a field removed in the same edit', edit: (d) => { const { $ref: _r, ...rest } = schemas(d).Contract.properties.customer; const inline = { ...structuredClone(schemas(d).OrganisationRef), ...rest }; delete inline.properties.name; inline.required = inline.required.filter((f: string) => f !== 'name'); schemas(d).Contract.properties.customer = inline; }, expected: [[B, 'response.body.property.removed'], [B, 'response.body.required.removed']] },
  // Sibling `properties` beside a shared field filter (D-105's per-list operand enums): the shared schema still applies,
  // and only the operand gains an enum. Two fields share one filter, whose operand is itself a reference.
  { name: 'request: a field-to-field operand narrowed to an enum beside the shared field filter, on every field of a list', edit: (d) => { for (const field of ['id', 'name']) schemas(d).ContractFilter.properties[field].properties = { sameas: { enum: ['id', 'name'] } }; }, expected: [[B, 'request.parameter.enum.introduced']] },
  { name: 'refactor: sibling properties that only repeat the shared field filter', edit: (d) => { schemas(d).ContractFilter.properties.name.properties = { sameas: { $ref: '#/components/schemas/FilterFieldName' } }; }, expected: [] },
  { name: 'a sibling that overrides an assertion of its target is a real change', edit: (d) => { schemas(d).CaseCreate.properties.priority.maximum = 3; }, expected: [[B, 'request.body.maximum.added']] },

  // Responses: what the client reads.
  { name: 'response: a field removed', edit: (d) => { delete schemas(d).Contract.properties.name; schemas(d).Contract.required = schemas(d).Contract.required.filter((f: string) => f !== 'name'); }, expected: [[B, 'response.body.property.removed'], [B, 'response.body.required.removed']] },
  { name: 'response: a field added', edit: (d) => { schemas(d).Contract.properties.region = { type: 'string', description: 'Region.', example: 'EU' }; }, expected: [[N, 'response.body.property.added']] },
  { name: 'response: an enum narrowed', edit: (d) => { schemas(d).EventMeta.properties.environment.enum = ['Production']; }, expected: [[B, 'response.body.enum.narrowed'], [B, 'event.body.enum.narrowed']] },
  { name: 'response: an enum widened', edit: (d) => { schemas(d).EventMeta.properties.environment.enum.push('Acceptance'); }, expected: [[B, 'response.body.enum.widened'], [B, 'event.body.enum.widened']] },
  { name: 'response: a status code removed', edit: (d) => { delete op(d, '/contracts', 'get').responses['429']; }, expected: [[B, 'response.status.removed']] },
  { name: 'response: a status code added', edit: (d) => { op(d, '/contracts/{contractId}', 'get').responses['404'] = { $ref: '#/components/responses/NotFound' }; }, expected: [[N, 'response.status.added']] },
  { name: 'response: X-CareAPI-Env no longer declared', edit: (d) => { delete op(d, '/contracts', 'get').responses['200'].headers['X-CareAPI-Env']; }, expected: [[B, 'care.env-header.removed']] },
  { name: 'response: Location header removed', edit: (d) => { delete op(d, '/cases', 'post').responses['201'].headers.Location; }, expected: [[B, 'response.header.removed']] },
  { name: 'response: a new response header', edit: (d) => { op(d, '/contracts', 'get').responses['200'].headers['X-Total-Count'] = { description: 'Total.', schema: { type: 'integer' } }; }, expected: [[N, 'response.header.added']] },
  { name: 'response: a field becomes nullable', edit: (d) => { schemas(d).Contract.properties.name.type = ['string', 'null']; }, expected: [[B, 'response.body.type.changed']] },
  { name: 'response: a description reworded', edit: (d) => { op(d, '/contracts', 'get').responses['200'].description = 'The contracts of the account, one page.'; }, expected: [[D, 'response.description.changed']] },
  { name: 'response: a link to the next operation added', edit: (d) => { op(d, '/contracts', 'get').responses['200'].links = { GetContract: { operationId: 'getContract', parameters: { contractId: '$response.body#/data/0/id' } } }; }, expected: [[N, 'response.links.added']] },
  { name: 'response: a link removed', base: (d) => { op(d, '/contracts', 'get').responses['200'].links = { GetContract: { operationId: 'getContract', parameters: { contractId: '$response.body#/data/0/id' } } }; }, edit: (d) => { delete op(d, '/contracts', 'get').responses['200'].links; }, expected: [[N, 'response.links.removed']] },
  { name: 'response: a link retargeted', base: (d) => { op(d, '/contracts', 'get').responses['200'].links = { GetContract: { operationId: 'getContract', parameters: { contractId: '$response.body#/data/0/id' } } }; }, edit: (d) => { op(d, '/contracts', 'get').responses['200'].links.GetContract.operationId = 'updateContract'; }, expected: [[N, 'response.links.changed']] },

  // Operations.
  { name: 'operation removed', edit: (d) => { delete d.paths['/contracts/{contractId}'].patch; }, expected: [[B, 'operation.removed']] },
  { name: 'operation added', edit: (d) => { d.paths['/contracts/{contractId}'].delete = { operationId: 'deleteContract', summary: 'Delete', responses: { '204': { description: 'Deleted.' } } }; }, expected: [[N, 'operation.added']] },
  { name: 'operation deprecated', edit: (d) => { op(d, '/contracts', 'get').deprecated = true; }, expected: [[N, 'operation.deprecated']] },
  { name: 'operation summary reworded', edit: (d) => { op(d, '/contracts', 'get').summary = 'List the contracts'; }, expected: [[D, 'operation.summary.changed']] },
  { name: 'document description reworded', edit: (d) => { d.info.description += '\nOne more line.'; }, expected: [[D, 'document.info.changed']] },

  // Webhooks: the service writes the event, the integrator's receiver reads it (like a response).
  { name: 'event: a payload field removed', edit: (d) => { delete schemas(d).EventMeta.properties.triggered; schemas(d).EventMeta.required = schemas(d).EventMeta.required.filter((f: string) => f !== 'triggered'); }, expected: [[B, 'event.body.property.removed'], [B, 'event.body.required.removed'], [B, 'response.body.property.removed'], [B, 'response.body.required.removed']] },
  { name: 'event: a payload field added', edit: (d) => { schemas(d).EventMeta.properties.attempt = { type: 'integer', description: 'Attempt.', example: 1 }; }, expected: [[N, 'event.body.property.added'], [N, 'response.body.property.added']] },
  { name: 'event: a payload field no longer always present', edit: (d) => { schemas(d).EventMeta.required = schemas(d).EventMeta.required.filter((f: string) => f !== 'caseId'); }, expected: [[B, 'event.body.required.removed'], [B, 'response.body.required.removed']] },
  { name: 'event: a payload field now always present', edit: (d) => { schemas(d).EventMeta.properties.attempt = { type: 'integer', description: 'Attempt.', example: 1 }; schemas(d).EventMeta.required.push('attempt'); }, expected: [[N, 'event.body.property.added'], [N, 'event.body.required.added'], [N, 'response.body.property.added'], [N, 'response.body.required.added']] },
  { name: 'event: delivery no longer carries X-CareAPI-Env', edit: (d) => { const w = webhook(d, 'case.updated'); w.parameters = w.parameters.filter((p: any) => !String(p.$ref).endsWith('EnvRequestHeader')); }, expected: [[B, 'care.env-header.removed']] },
  { name: 'event: signature header dropped', edit: (d) => { const w = webhook(d, 'case.comment.created'); w.parameters = w.parameters.filter((p: any) => !String(p.$ref).endsWith('WebhookSignatureHeader')); }, expected: [[B, 'event.header.removed']] },
  { name: 'event type removed', edit: (d) => { delete d.webhooks['case.attachment.created']; }, expected: [[B, 'event.removed']] },
  { name: 'event type added', edit: (d) => { d.webhooks['case.closed'] = structuredClone(d.webhooks['case.updated']); d.webhooks['case.closed'].post.operationId = 'onCaseClosed'; }, expected: [[N, 'event.added']] },
  { name: 'event: the 410 reply no longer honoured', edit: (d) => { delete webhook(d, 'case.updated').responses['410']; }, expected: [[B, 'event-reply.status.removed']] },
  { name: 'event: a new reply the service honours', edit: (d) => { webhook(d, 'case.updated').responses['429'] = { description: 'Slow down; retried later.' }; }, expected: [[N, 'event-reply.status.added']] },
  { name: 'event: description reworded', edit: (d) => { webhook(d, 'case.updated').description = 'A case changed.'; }, expected: [[D, 'event.description.changed']] },

  // Lists: the description's own filter and sort semantics.
  { name: 'filter: a filterable field removed', edit: (d) => { delete schemas(d).ContractFilter.properties.name; }, expected: [[B, 'care.filter.field.removed']] },
  { name: 'filter: a filterable field added', edit: (d) => { schemas(d).ContractFilter.properties.customer = { $ref: '#/components/schemas/StringFieldFilter' }; }, expected: [[N, 'care.filter.field.added']] },
  { name: 'filter: an operator removed from a field', edit: (d) => { const f = structuredClone(schemas(d).IntegerFieldFilter); delete f.properties.between; schemas(d).CaseFilter.properties.priority = f; }, expected: [[B, 'care.filter.operator.removed']] },
  { name: 'filter: an operator added to a field', edit: (d) => { const f = structuredClone(schemas(d).BooleanFieldFilter); f.properties.in = { $ref: '#/components/schemas/FilterStringList' }; schemas(d).WebhookFilter.properties.enabled = f; }, expected: [[N, 'care.filter.operator.added']] },
  { name: 'filter: value type narrowed (string to integer)', edit: (d) => { const f = structuredClone(schemas(d).StringFieldFilter); f['x-care-value-type'] = 'integer'; schemas(d).CaseFilter.properties.incident = f; }, expected: [[B, 'care.filter.value-type.changed']] },
  { name: 'filter: value pattern tightened', edit: (d) => { schemas(d).FilterInteger.pattern = '^[0-9]+$'; }, expected: [[B, 'request.parameter.pattern.changed']] },
  { name: 'filter: operator arity changed', edit: (d) => { schemas(d).FilterOperator['x-care-operators'].between.arity = 'list'; }, expected: [[B, 'care.operator.arity.changed']] },
  { name: 'filter: an operator added to the grammar', edit: (d) => { schemas(d).FilterOperator['x-care-operators'].iLike = { arity: 'single', negationOf: null, summary: 'case-insensitive like' }; schemas(d).FilterOperator.enum.push('iLike'); }, expected: [[N, 'care.operator.added']] },
  { name: 'filter: an operator removed from the grammar', edit: (d) => { delete schemas(d).FilterOperator['x-care-operators'].notMatch; schemas(d).FilterOperator.enum = schemas(d).FilterOperator.enum.filter((o: string) => o !== 'notMatch'); }, expected: [[B, 'care.operator.removed']] },
  { name: 'sort: a sortable field removed', edit: (d) => { const items = d.components.parameters.ContractSort.schema.items; items.enum = items.enum.filter((v: string) => v.replace(/^-/, '') !== 'name'); }, expected: [[B, 'care.sort.field.removed']] },
  { name: 'sort: a sortable field added', edit: (d) => { d.components.parameters.CaseSort.schema.items.enum.push('description', '-description'); }, expected: [[N, 'care.sort.field.added']] },

  // Environments.
  { name: 'environment: a trigger moved from sandbox to production', edit: (d) => { d.paths['/events/case.updated']['x-care-environments'] = ['production']; }, expected: [[B, 'care.environment.removed'], [N, 'care.environment.added']] },
  { name: 'environment: a trigger also served in production', edit: (d) => { d.paths['/events/case.updated']['x-care-environments'] = ['sandbox', 'production']; }, expected: [[N, 'care.environment.added']] },
  { name: 'environment: an operation made sandbox-only', edit: (d) => { d.paths['/contracts']['x-care-environments'] = ['sandbox']; }, expected: [[B, 'care.environment.removed']] },
  { name: 'server: production base address changed', edit: (d) => { d.servers[0].url = 'https://{host}/care/v1'; }, expected: [[B, 'care.server.url.changed']] },
  { name: 'server: description reworded', edit: (d) => { d.servers[1].description = 'The sandbox.'; }, expected: [[D, 'care.server.description.changed']] },

  // Security.
  { name: 'security: API-key exchange no longer accepted', edit: (d) => { d.security = [{ bearerAuth: [] }]; }, expected: [[B, 'care.security.changed']] },
  { name: 'security: a new alternative accepted', edit: (d) => { d.components.securitySchemes.mtls = { type: 'mutualTLS', description: 'mTLS.' }; d.security.push({ mtls: [] }); }, expected: [[B, 'care.security.changed'], [N, 'care.security.scheme.added']] },
  { name: 'security: one operation requires a scope', edit: (d) => { op(d, '/apikeys', 'post').security = [{ bearerAuth: ['apikeys:write'] }]; }, expected: [[B, 'care.security.changed']] },
  { name: 'security: token URL moved', edit: (d) => { d.components.securitySchemes.apiKeyExchange.flows.clientCredentials.tokenUrl = 'https://auth.care.example/auth/v3/oauth/token'; }, expected: [[B, 'care.security.scheme.changed']] },
  { name: 'security: scheme description reworded', edit: (d) => { d.components.securitySchemes.bearerAuth.description = 'A JWT.'; }, expected: [[D, 'care.security.scheme.description.changed']] },
];
