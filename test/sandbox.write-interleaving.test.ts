// Issue 34, "a write decides on what it writes" (D-88): for every write operation the description declares, a
// request whose headers have arrived but whose body has not, another write of the same resource in between, then
// the body. The held write must be decided on the resource as stored when its body arrived: its answer is what is
// stored, its event carries the stored state, and a write of a resource deleted, revoked or moved out of the caller's
// scope meanwhile is refused with nothing stored. The scenarios are keyed by operationId and must cover exactly the
// description's write operations, so a new one fails here until it has its interleaving.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../src/spec/types.ts';
import { BASES, spec, startHarness } from './helpers/sandbox.ts';
import type { Answer, Harness, Role } from './helpers/sandbox.ts';
import { heldRequest } from './support/raw-http.ts';
import type { RawAnswer } from './support/raw-http.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ deliver: false });
});
afterAll(() => h?.close());

/** The environment of the scenario running now: triggers exist in sandbox only, automatic events in production only. */
let env: Environment = 'sandbox';

/** Send `method path` as `who` with its head first; `between` runs once the handler has started; then the body. */
async function interleaved(who: Role, method: string, path: string, body: Buffer, contentType: string, between: () => Promise<unknown>): Promise<RawAnswer & { json: any }> {
  const head =
    `${method} ${BASES[env]}${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
    `Authorization: Bearer ${h.tokens[env][who]}\r\nContent-Type: ${contentType}\r\n`;
  const held = await heldRequest(h.sandbox.port, head, body);
  await between();
  const answer = await held.finish();
  let json: any;
  try {
    json = JSON.parse(answer.body);
  } catch {
    json = undefined;
  }
  return { ...answer, json };
}

const jsonWrite = (who: Role, method: string, path: string, body: unknown, between: () => Promise<unknown>) =>
  interleaved(who, method, path, Buffer.from(JSON.stringify(body)), 'application/json', between);

const ok = (answer: Answer, status = 200) => {
  expect(answer.status, answer.text).toBe(status);
  return answer.json.data;
};

async function newCase(shortDescription: string): Promise<string> {
  const contract = h.sandbox.demo[env].customer.contracts[0];
  return ok(await h.call(env, 'customer', 'POST', '/cases', { contract, shortDescription }), 201).id;
}

/** A contract of the partner whose customer is not the demo customer: moving a case there takes it out of its scope. */
function otherCustomersContract(): string {
  const mine = new Set(h.sandbox.demo[env].customer.contracts);
  return h.sandbox.demo[env].partner.contracts.find((c: string) => !mine.has(c))!;
}

async function caseEvents(caseId: string, type: string): Promise<any[]> {
  return ok(await h.call(env, 'partner', 'GET', `/events?filter[case]=${caseId}&filter[type]=${type}&sort=createdAt&page[size]=100`));
}

function multipart(fileName: string, content: string): { body: Buffer; type: string } {
  const boundary = 'interleave-boundary';
  const body = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n--${boundary}--\r\n`,
  );
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

/** A created resource reads back exactly as its 201 answered (secrets shown once aside). */
async function createdIsStored(answer: RawAnswer & { json: any }, path: (id: string) => string, omit: string[] = []): Promise<void> {
  expect(answer.status, answer.body).toBe(201);
  const data = { ...answer.json.data };
  for (const field of omit) delete data[field];
  expect(ok(await h.call(env, 'customer', 'GET', path(data.id)))).toEqual(data);
}

/** A trigger held while the partner moves the case out of the customer's contracts: refused, and no event recorded. */
function triggerScenario(operationId: string) {
  return async () => {
    const caseId = await newCase(`trigger ${operationId}`);
    const path = spec.operation(operationId).path;
    const type = path.split('/').pop()!;
    const before = (await caseEvents(caseId, type)).length;
    const body: Record<string, unknown> = { caseId };
    if (type === 'case.updated') body.updated = ['priority'];
    if (type === 'case.comment.created') {
      body.commentId = ok(await h.call(env, 'customer', 'POST', `/cases/${caseId}/comments`, { text: 'c', contact: h.sandbox.demo[env].customer.contacts?.[0] ?? 'anna.berg@acme.example' }), 201).id;
    }
    if (type === 'case.attachment.created') {
      const form = new FormData();
      form.append('file', new Blob(['x']), 'x.txt');
      body.attachmentId = ok(await h.call(env, 'customer', 'POST', `/cases/${caseId}/attachments`, form), 201).id;
    }
    const answer = await jsonWrite('customer', 'POST', path, body, () => h.call(env, 'partner', 'PATCH', `/cases/${caseId}`, { contract: otherCustomersContract() }));
    expect([403, 404], answer.body).toContain(answer.status);
    expect((await caseEvents(caseId, type)).length).toBe(before);
  };
}

const scenarios: Record<string, () => Promise<void>> = {
  async createApiKey() {
    const answer = await jsonWrite('customer', 'POST', '/apikeys', { label: 'held key' }, () => h.call(env, 'customer', 'POST', '/apikeys', { label: 'between' }));
    await createdIsStored(answer, (id) => `/apikeys/${id}`, ['secret']);
  },
  async updateApiKey() {
    const key = ok(await h.call(env, 'customer', 'POST', '/apikeys', { label: 'to revoke' }), 201);
    const answer = await jsonWrite('customer', 'PATCH', `/apikeys/${key.id}`, { label: 'renamed while revoked' }, () => h.call(env, 'customer', 'DELETE', `/apikeys/${key.id}`));
    expect(answer.status, answer.body).toBe(400);
    expect(answer.json.errors[0].code).toBe('key_revoked');
    expect(ok(await h.call(env, 'customer', 'GET', `/apikeys/${key.id}`)).label).toBe('to revoke');
  },
  async revokeApiKey() {
    // the revoke lands while a rename is held: the rename's answer is the stored state, the revoke's too
    const key = ok(await h.call(env, 'customer', 'POST', '/apikeys', { label: 'held rename' }), 201);
    let revoked: Answer | undefined;
    const rename = await jsonWrite('customer', 'PATCH', `/apikeys/${key.id}`, { label: 'renamed' }, async () => (revoked = await h.call(env, 'customer', 'DELETE', `/apikeys/${key.id}`)));
    expect(rename.status).toBe(400);
    expect(ok(await h.call(env, 'customer', 'GET', `/apikeys/${key.id}`))).toEqual(ok(revoked!));
  },
  async createCase() {
    const contract = h.sandbox.demo[env].customer.contracts[0];
    const answer = await jsonWrite('customer', 'POST', '/cases', { contract, shortDescription: 'held create' }, () => h.call(env, 'customer', 'POST', '/cases', { contract, shortDescription: 'between' }));
    await createdIsStored(answer, (id) => `/cases/${id}`);
  },
  async updateCase() {
    env = 'production'; // where a PATCH fires case.updated
    const caseId = await newCase('held patch');
    const stored = ok(await h.call(env, 'customer', 'GET', `/cases/${caseId}`));
    const status = stored.status === 10 ? 18 : 10;
    const priority = stored.priority === 2 ? 4 : 2;
    const answer = await jsonWrite('customer', 'PATCH', `/cases/${caseId}`, { priority }, () => h.call(env, 'partner', 'PATCH', `/cases/${caseId}`, { status }));
    expect(answer.status, answer.body).toBe(200);
    const now = ok(await h.call(env, 'customer', 'GET', `/cases/${caseId}`));
    expect(now).toMatchObject({ status, priority }); // both writes kept, field by field
    expect(answer.json.data).toEqual(now); // the held write's answer is what is stored
    const events = await caseEvents(caseId, 'case.updated');
    // the partner's write and then the held one, each event with the state stored by it
    expect(events.at(-1).payload.data).toEqual(now);
    expect(events.at(-1).payload.meta.updated).toEqual(['priority']);
  },
  async createCaseComment() {
    const caseId = await newCase('held comment');
    const answer = await jsonWrite('customer', 'POST', `/cases/${caseId}/comments`, { text: 'after the move', contact: h.sandbox.demo[env].customer.contacts[0] }, () =>
      h.call(env, 'partner', 'PATCH', `/cases/${caseId}`, { contract: otherCustomersContract() }),
    );
    expect([403, 404], answer.body).toContain(answer.status);
    expect(ok(await h.call(env, 'partner', 'GET', `/cases/${caseId}/comments`))).toEqual([]);
  },
  async uploadCaseAttachment() {
    const caseId = await newCase('held upload');
    const { body, type } = multipart('held.txt', 'bytes');
    const answer = await interleaved('customer', 'POST', `/cases/${caseId}/attachments`, body, type, () =>
      h.call(env, 'partner', 'PATCH', `/cases/${caseId}`, { contract: otherCustomersContract() }),
    );
    expect([403, 404], answer.body).toContain(answer.status);
    expect(ok(await h.call(env, 'partner', 'GET', `/cases/${caseId}/attachments`))).toEqual([]);
  },
  async updateContract() {
    const contract = h.sandbox.demo[env].customer.contracts[0];
    const answer = await jsonWrite('customer', 'PATCH', `/contracts/${contract}`, { externalReference: 'HELD-2' }, () =>
      h.call(env, 'customer', 'PATCH', `/contracts/${contract}`, { externalReference: 'BETWEEN-1' }),
    );
    expect(answer.status, answer.body).toBe(200);
    expect(answer.json.data).toEqual(ok(await h.call(env, 'customer', 'GET', `/contracts/${contract}`)));
    expect(answer.json.data.externalReference).toBe('HELD-2');
  },
  async createWebhook() {
    const answer = await jsonWrite('customer', 'POST', '/webhooks', { url: 'http://127.0.0.1:9/held' }, () => h.call(env, 'customer', 'POST', '/webhooks', { url: 'http://127.0.0.1:9/between' }));
    await createdIsStored(answer, (id) => `/webhooks/${id}`, ['signingSecret']);
  },
  async updateWebhook() {
    const hook = ok(await h.call(env, 'customer', 'POST', '/webhooks', { url: 'http://127.0.0.1:9/doomed' }), 201);
    const answer = await jsonWrite('customer', 'PATCH', `/webhooks/${hook.id}`, { enabled: false }, () => h.call(env, 'customer', 'DELETE', `/webhooks/${hook.id}`));
    expect(answer.status, answer.body).toBe(404);
    expect((await h.call(env, 'customer', 'GET', `/webhooks/${hook.id}`)).status).toBe(404);
  },
  async deleteWebhook() {
    // the delete lands while a PATCH is held: the PATCH is refused, the subscription stays gone
    const hook = ok(await h.call(env, 'customer', 'POST', '/webhooks', { url: 'http://127.0.0.1:9/held-delete' }), 201);
    let deleted: Answer | undefined;
    const patch = await jsonWrite('customer', 'PATCH', `/webhooks/${hook.id}`, { url: 'http://127.0.0.1:9/revived' }, async () => (deleted = await h.call(env, 'customer', 'DELETE', `/webhooks/${hook.id}`)));
    expect(deleted!.status).toBe(204);
    expect(patch.status).toBe(404);
    const list = ok(await h.call(env, 'customer', 'GET', '/webhooks?page[size]=100'));
    expect(list.map((w: { id: string }) => w.id)).not.toContain(hook.id);
  },
};
for (const op of spec.operations) if (op.operationId.startsWith('trigger')) scenarios[op.operationId] = triggerScenario(op.operationId);

describe('a write decides on what is stored when its body has arrived (D-88)', () => {
  it('has an interleaving for every write operation of the description', () => {
    const writes = spec.operations.filter((op) => op.method !== 'get').map((op) => op.operationId);
    expect(Object.keys(scenarios).sort()).toEqual(writes.sort());
  });

  for (const [operationId, run] of Object.entries(scenarios)) {
    it(operationId, async () => {
      env = 'sandbox';
      await run();
    });
  }
});
