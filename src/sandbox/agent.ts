// The agent API, outside the public contract: lets tests and demos act as a service-desk agent. Under
// /_agent/{production|sandbox}/...: create or update a case (incident and contract included), comment, attach, and
// read the delivery log of an event. Agent actions fire events in production (seed section 6); in sandbox nothing fires.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Environment } from '../spec/types.ts';
import type { Services } from './context.ts';
import { addAttachment, addComment, createCase, updateCase } from './domain.ts';
import { readJson, readUpload } from './http/body.ts';
import { ApiError, badRequest, envHeader, notFound, sendError, sendJson } from './http/envelope.ts';
import { isEmail, validateBody } from './validate.ts';

const ROUTES = [
  'POST  /_agent/{env}/cases                          {contract|null, customer?, shortDescription, ...} create a case (e.g. by phone)',
  'PATCH /_agent/{env}/cases/{caseId}                 any case field, incl. incident and contract (null unassigns)',
  'POST  /_agent/{env}/cases/{caseId}/comments        {text, contact, partnerComment?}',
  'POST  /_agent/{env}/cases/{caseId}/attachments     multipart/form-data, part "file"',
  'GET   /_agent/{env}/events/{eventId}/deliveries    delivery attempts of an event',
];

function requireCaseId(svc: Services, env: Environment, caseId: string) {
  const stored = svc.store.get('cases', env, caseId);
  if (!stored) throw notFound(`path.caseId: case ${caseId} not found`);
  return stored;
}

/** Pull the agent-only fields out, validate the rest as the public update schema does. */
async function readCaseFields(svc: Services, env: Environment, body: unknown, schema: string): Promise<Record<string, any>> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('body: Input should be a valid dictionary', 'model_attributes_type');
  const { incident, contract, customer, ...rest } = body as Record<string, any>;
  const fields: Record<string, any> =
    Object.keys(rest).length > 0 || schema === 'CaseCreate'
      ? await validateBody(svc.spec, { $ref: `#/components/schemas/${schema}` }, schema === 'CaseCreate' ? { ...rest, contract: 'agent' } : rest)
      : {};
  if (schema === 'CaseCreate') delete fields.contract;
  if (incident !== undefined) {
    if (incident !== null && (typeof incident !== 'string' || incident.length > 64)) throw badRequest('body.incident: Input should be a valid string', 'string_type');
    fields.incident = incident;
  }
  if (contract !== undefined) {
    if (contract !== null && !svc.store.get('contracts', env, String(contract))) throw badRequest(`body.contract: contract ${String(contract)} does not exist`, 'value_error');
    fields.contract = contract;
  }
  if (customer !== undefined) fields.customer = customer;
  return fields;
}

export async function handleAgent(svc: Services, req: IncomingMessage, res: ServerResponse, url: URL, requestId: string, token?: string, log: (line: string) => void = () => {}): Promise<void> {
  const segments = url.pathname.split('/').filter(Boolean).slice(1); // drop "_agent"
  const env = segments[0] === 'production' || segments[0] === 'sandbox' ? (segments[0] as Environment) : undefined;
  const headers: Record<string, string> = env ? { 'X-CareAPI-Env': envHeader(env) } : {};
  const ok = (status: number, data: unknown) => sendJson(res, status, { meta: { requestId }, data }, headers);
  try {
    if (token && req.headers.authorization !== `Bearer ${token}`) {
      throw new ApiError(401, { detail: 'header.Authorization: agent token required', code: 'unauthorized' }, { 'WWW-Authenticate': 'Bearer realm="care-agent"' });
    }
    const parts = segments.map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        throw badRequest(`path: malformed percent-encoding in ${url.pathname}`, 'invalid_path');
      }
    });
    const method = req.method ?? 'GET';
    const [, collection, caseId, sub, extra] = parts;
    if (!env) {
      if (parts.length === 0 && method === 'GET') return ok(200, { description: 'Service-desk agent API of the reference sandbox (not part of the Care API contract).', routes: ROUTES });
      throw notFound(`path: use /_agent/production/... or /_agent/sandbox/...`);
    }
    if (collection === 'cases' && !caseId && method === 'POST') {
      const fields = await readCaseFields(svc, env, await readJson(req, svc.spec.limits), 'CaseCreate');
      const contract = fields.contract ?? null;
      let customerOrg: string | undefined = fields.customer;
      if (contract) customerOrg = svc.store.get('contracts', env, contract)?.internal.customerOrg ?? undefined;
      if (!customerOrg || !svc.store.getOrg(env, customerOrg)) throw badRequest('body.customer: give a contract or a customer organisation id', 'missing');
      delete fields.customer;
      return ok(201, createCase(svc, env, { ...(fields as any), contract, customerOrg }, null));
    }
    if (collection === 'cases' && caseId && !sub && method === 'PATCH') {
      requireCaseId(svc, env, caseId);
      const fields = await readCaseFields(svc, env, await readJson(req, svc.spec.limits), 'CaseUpdate');
      delete fields.customer;
      // read again after the body: the case may have changed while it arrived
      return ok(200, updateCase(svc, env, requireCaseId(svc, env, caseId), fields, null));
    }
    if (collection === 'cases' && caseId && sub === 'comments' && method === 'POST') {
      requireCaseId(svc, env, caseId);
      const body = await validateBody(svc.spec, { $ref: '#/components/schemas/CommentCreate' }, await readJson(req, svc.spec.limits));
      if (!isEmail(body.contact)) throw badRequest('body.contact: value is not a valid email address', 'value_error');
      return ok(201, addComment(svc, env, requireCaseId(svc, env, caseId), { text: body.text, contact: body.contact, partnerComment: body.partnerComment === true }, null));
    }
    if (collection === 'cases' && caseId && sub === 'attachments' && method === 'POST') {
      requireCaseId(svc, env, caseId);
      const file = await readUpload(req, svc.spec);
      return ok(201, addAttachment(svc, env, requireCaseId(svc, env, caseId), file, null));
    }
    if (collection === 'events' && caseId && sub === 'deliveries' && !extra && method === 'GET') {
      if (!svc.store.get('events', env, caseId)) throw notFound(`path.eventId: event ${caseId} not found`);
      return ok(200, svc.store.deliveries(caseId, env));
    }
    throw notFound(`path: no agent operation at ${method} ${url.pathname}`);
  } catch (error) {
    if (!req.readableEnded) req.resume();
    if (!(error instanceof ApiError)) log(`[care-sandbox] agent ${req.method} ${url.pathname}: ${(error as Error)?.stack ?? String(error)}`);
    const apiError = error instanceof ApiError ? error : new ApiError(500, { detail: 'server: unexpected failure; quote the requestId', code: 'internal_error' });
    sendError(res, requestId, apiError, headers);
  }
}
