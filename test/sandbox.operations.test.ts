// Every operation of the description, in every environment it declares, answered as the description says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../src/spec/types.ts';
import { handlers } from '../src/sandbox/handlers/index.ts';
import { responseProblems, spec, startHarness } from './helpers/sandbox.ts';
import type { Answer, Harness } from './helpers/sandbox.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

/** One valid request per operation; ids made on the way (a case, a comment...) are kept per environment. */
type Step = (env: Environment, ids: Record<string, string>) => Promise<Answer>;

function steps(): Record<string, Step> {
  const demo = (env: Environment) => h.sandbox.demo[env];
  const c = (env: Environment, method: string, path: string, body?: unknown) => h.call(env, 'customer', method, path, body);
  return {
    listApiKeys: (env) => c(env, 'GET', '/apikeys?sort=-createdAt'),
    createApiKey: async (env, ids) => {
      const a = await c(env, 'POST', '/apikeys', { label: 'ops test', expiresAt: '2099-01-01T00:00:00Z' });
      ids.key = a.json?.data?.id;
      return a;
    },
    getApiKey: (env, ids) => c(env, 'GET', `/apikeys/${ids.key}`),
    updateApiKey: (env, ids) => c(env, 'PATCH', `/apikeys/${ids.key}`, { label: 'renamed' }),
    revokeApiKey: (env, ids) => c(env, 'DELETE', `/apikeys/${ids.key}`),
    listCases: (env) => c(env, 'GET', '/cases?filter[status][in]=1,10&sort=-createdAt&page[size]=5'),
    createCase: async (env, ids) => {
      const a = await c(env, 'POST', '/cases', { contract: demo(env).customer.contracts[0], shortDescription: 'Ops test', priority: '2', watchList: 'ana.silva@customer.example' });
      ids.case = a.json?.data?.id;
      return a;
    },
    getCase: (env, ids) => c(env, 'GET', `/cases/${ids.case}`),
    updateCase: (env, ids) => c(env, 'PATCH', `/cases/${ids.case}`, { status: 10, description: 'more' }),
    listCaseComments: (env, ids) => c(env, 'GET', `/cases/${ids.case}/comments`),
    createCaseComment: async (env, ids) => {
      const a = await c(env, 'POST', `/cases/${ids.case}/comments`, { text: 'Hello', contact: 'ana.silva@customer.example' });
      ids.comment = a.json?.data?.id;
      return a;
    },
    getCaseComment: (env, ids) => c(env, 'GET', `/cases/${ids.case}/comments/${ids.comment}`),
    listCaseAttachments: (env, ids) => c(env, 'GET', `/cases/${ids.case}/attachments`),
    uploadCaseAttachment: async (env, ids) => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.from('hello attachment')], { type: 'text/plain' }), 'hello.txt');
      const a = await h.call(env, 'customer', 'POST', `/cases/${ids.case}/attachments`, form);
      ids.attachment = a.json?.data?.id;
      return a;
    },
    getCaseAttachment: (env, ids) => c(env, 'GET', `/cases/${ids.case}/attachments/${ids.attachment}`),
    downloadCaseAttachment: (env, ids) => c(env, 'GET', `/cases/${ids.case}/attachments/${ids.attachment}/download`),
    listContracts: (env) => c(env, 'GET', '/contracts'),
    getContract: (env) => c(env, 'GET', `/contracts/${demo(env).customer.contracts[0]}`),
    updateContract: (env) => c(env, 'PATCH', `/contracts/${demo(env).customer.contracts[0]}`, { externalReference: 'PO-1' }),
    listEvents: (env) => c(env, 'GET', '/events?sort=-createdAt'),
    getEvent: async (env, ids) => {
      // a partner action makes an event of the shared contract in production; in sandbox a trigger does
      if (env === 'production') {
        await h.call(env, 'partner', 'PATCH', `/cases/${ids.case}`, { priority: 1 });
        const list = await c(env, 'GET', '/events?sort=-createdAt&page[size]=1');
        ids.event = list.json.data[0].id;
      } else {
        const t = await c(env, 'POST', '/events/case.contract.assigned', { caseId: ids.case });
        ids.event = t.json.data.id;
      }
      return c(env, 'GET', `/events/${ids.event}`);
    },
    listWebhooks: (env) => c(env, 'GET', '/webhooks'),
    createWebhook: async (env, ids) => {
      const a = await c(env, 'POST', '/webhooks', {
        url: 'https://receiver.example/hook',
        eventTypes: ['case.*'],
        authorization: [{ type: 'basic', username: 'u', password: 'p' }, { type: 'header', name: 'X-Key', value: 'v' }],
        enabled: false,
      });
      ids.webhook = a.json?.data?.id;
      return a;
    },
    getWebhook: (env, ids) => c(env, 'GET', `/webhooks/${ids.webhook}`),
    updateWebhook: (env, ids) => c(env, 'PATCH', `/webhooks/${ids.webhook}`, { contracts: ['CT*'] }),
    deleteWebhook: (env, ids) => c(env, 'DELETE', `/webhooks/${ids.webhook}`),
    triggerCaseContractAssigned: (env, ids) => c(env, 'POST', '/events/case.contract.assigned', { caseId: ids.case }),
    triggerCaseContractUnassigned: (env, ids) => c(env, 'POST', '/events/case.contract.unassigned', { caseId: ids.case }),
    triggerCaseUpdated: (env, ids) => c(env, 'POST', '/events/case.updated', { caseId: ids.case, updated: ['status'] }),
    triggerCaseAttachmentCreated: (env, ids) => c(env, 'POST', '/events/case.attachment.created', { caseId: ids.case, attachmentId: ids.attachment }),
    triggerCaseCommentCreated: (env, ids) => c(env, 'POST', '/events/case.comment.created', { caseId: ids.case, commentId: ids.comment }),
  };
}

const SUCCESS: Record<string, number> = { post: 201, delete: 200 };

describe('every operation', () => {
  it('has a handler, and a scenario here', () => {
    const paths = spec.operations;
    expect(paths.length).toBeGreaterThan(25);
    const scenario = steps();
    for (const op of paths) {
      expect(handlers[op.operationId], op.operationId).toBeTypeOf('function');
      expect(scenario[op.operationId], op.operationId).toBeTypeOf('function');
    }
  });

  for (const env of ['production', 'sandbox'] as Environment[]) {
    it(`answers each operation in ${env} as described`, async () => {
      const scenario = steps();
      const ids: Record<string, string> = {};
      const seen: string[] = [];
      for (const op of spec.operations) {
        if (!op.environments.includes(env)) continue;
        const answer = await scenario[op.operationId](env, ids);
        const expected = op.operationId.startsWith('trigger') ? 202 : op.operationId === 'deleteWebhook' ? 204 : SUCCESS[op.method] ?? 200;
        expect(answer.status, `${op.operationId}: ${answer.text.slice(0, 300)}`).toBe(expected);
        expect(responseProblems(op, env, answer), op.operationId).toEqual([]);
        seen.push(op.operationId);
      }
      expect(seen.length).toBe(spec.operations.filter((op) => op.environments.includes(env)).length);
    });
  }

  it('does not serve the trigger paths in production', async () => {
    const answer = await h.call('production', 'customer', 'POST', '/events/case.updated', { caseId: 'CS0010001', updated: ['status'] });
    expect([404, 405]).toContain(answer.status);
    expect(answer.headers.get('x-careapi-env')).toBe('Production');
  });
});

describe('http layer', () => {
  it('answers unknown paths 404 and wrong methods 405 with Allow, in the envelope with the env header', async () => {
    const unknown = await h.call('sandbox', 'customer', 'GET', '/nothing/here');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-careapi-env')).toBe('Sandbox');
    expect(unknown.json.errors[0].code).toBe('not_found');
    const wrong = await h.call('production', 'customer', 'PUT', '/cases');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(wrong.headers.get('x-careapi-env')).toBe('Production');
  });

  it('refuses non-JSON (415), malformed JSON (400), JSON over 1 MiB (413), a missing body (400)', async () => {
    const contract = h.sandbox.demo.sandbox.customer.contracts[0];
    const form = await h.call('sandbox', 'customer', 'POST', '/cases', `contract=${contract}`, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(form.json.errors[0].code).toBe('unsupported_media_type');
    const broken = await h.call('sandbox', 'customer', 'POST', '/cases', '{"contract": ', { 'content-type': 'application/json' });
    expect(broken.status).toBe(400);
    expect(broken.json.errors[0]).toMatchObject({ detail: 'body: Invalid JSON', code: 'invalid_json' });
    const huge = await h.call('sandbox', 'customer', 'POST', '/cases', JSON.stringify({ contract, shortDescription: 'x'.repeat(1_100_000) }), { 'content-type': 'application/json' });
    expect(huge.status).toBe(413);
    expect(huge.headers.get('x-careapi-env')).toBe('Sandbox');
    const none = await h.call('sandbox', 'customer', 'POST', '/cases');
    expect(none.status).toBe(400);
    expect(none.json.errors[0]).toMatchObject({ detail: 'body: Field required', code: 'missing' });
  });

  it('gives one error per problem with pydantic wording', async () => {
    const answer = await h.call('sandbox', 'customer', 'POST', '/cases', { priority: 'high', colour: 'red' });
    expect(answer.status).toBe(400);
    const details = answer.json.errors.map((e: any) => `${e.detail} [${e.code}]`).sort();
    expect(details).toEqual(
      [
        'body.colour: Extra inputs are not permitted [extra_forbidden]',
        'body.contract: Field required [missing]',
        'body.priority: Input should be a valid integer, unable to parse string as an integer [int_parsing]',
        'body.shortDescription: Field required [missing]',
      ].sort(),
    );
    for (const error of answer.json.errors) expect(error).toMatchObject({ status: '400', title: 'Bad Request' });
  });

  it('refuses read-only fields in PATCH (D-36)', async () => {
    const list = await h.call('sandbox', 'customer', 'GET', '/cases?page[size]=1');
    const id = list.json.data[0].id;
    const answer = await h.call('sandbox', 'customer', 'PATCH', `/cases/${id}`, { incident: 'INC1', id: 'X', createdAt: '2026-01-01' });
    expect(answer.status).toBe(400);
    expect(answer.json.errors.map((e: any) => e.detail).sort()).toEqual(
      ['body.createdAt: Extra inputs are not permitted', 'body.id: Extra inputs are not permitted', 'body.incident: Extra inputs are not permitted'].sort(),
    );
  });

  it('ignores unknown query parameters (D-34) and refuses bad list parameters', async () => {
    const ok = await h.call('sandbox', 'customer', 'GET', '/cases?colour=red&page[size]=2');
    expect(ok.status).toBe(200);
    const bad = await h.call('sandbox', 'customer', 'GET', '/cases?page[size]=500&sort=nope&filter[colour]=red');
    expect(bad.status).toBe(400);
    expect(bad.json.errors.map((e: any) => e.code).sort()).toEqual(['invalid_filter_field', 'invalid_sort_field', 'less_than_equal'].sort().filter((c) => bad.json.errors.some((e: any) => e.code === c)));
    expect(bad.json.errors.length).toBe(3);
  });

  it('answers an unexpected failure 500 in the envelope with the env header (here: the database is gone)', async () => {
    const broken = await startHarness({ seedCases: 5 });
    try {
      broken.sandbox.svc.store.close();
      const answer = await broken.call('production', 'customer', 'GET', '/cases');
      expect(answer.status).toBe(500);
      expect(answer.headers.get('x-careapi-env')).toBe('Production');
      expect(answer.json.errors[0]).toMatchObject({ status: '500', code: 'internal_error' });
      expect(answer.json.meta.requestId).toMatch(/^req_/);
    } finally {
      await broken.sandbox.svc.dispatcher.stop();
      await new Promise((resolve) => {
        broken.sandbox.server.close(resolve);
        broken.sandbox.server.closeAllConnections();
      });
    }
  });

  it('answers browser preflights and exposes its headers to other origins', async () => {
    const preflight = await fetch(`${h.origin}/care/v0/sandbox/cases`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
    const list = await h.call('sandbox', 'customer', 'GET', '/cases?page[size]=1', undefined, { origin: 'http://localhost:5173' });
    expect(list.headers.get('access-control-allow-origin')).toBe('*');
    expect(list.headers.get('access-control-expose-headers')).toContain('X-CareAPI-Env');
  });

  it('serves the bundles and the docs site', async () => {
    const bundle = await fetch(`${h.origin}/openapi/care-api.yaml`);
    expect(bundle.status).toBe(200);
    expect(await bundle.text()).toContain('openapi: 3.1.0');
    const docs = await fetch(`${h.origin}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('redoc');
  });
});
