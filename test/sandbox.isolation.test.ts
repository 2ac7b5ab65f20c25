// Isolation: for every list operation of the description and a sample of filters, as each seeded account in each
// environment, no item of a contract the account does not control (nor another account's keys or webhooks).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../src/spec/types.ts';
import { send, spec, startHarness } from './helpers/sandbox.ts';
import type { Harness, Role } from './helpers/sandbox.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ seedCases: 80 });
  // activity on every contract so events, keys and webhooks exist for everyone
  for (const env of ['production', 'sandbox'] as Environment[]) {
    for (const role of ['customer', 'partner'] as Role[]) {
      await h.call(env, role, 'POST', '/apikeys', { label: `${role} extra` });
      await h.call(env, role, 'POST', '/webhooks', { url: `https://${role}.example/hook`, enabled: false });
    }
    const all = h.sandbox.svc.store.findAll('cases', env, { by: 'contract', values: [...h.sandbox.demo[env].partner.contracts, h.sandbox.demo[env].foreignContract] });
    for (const c of all.slice(0, 40)) {
      await send(`${h.origin}/_agent/${env}/cases/${c.record.id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ incident: `INC-${c.record.id}` }) });
    }
  }
});
afterAll(() => h?.close());

/** Filters to try on a list: each filterable field with a few operators, values taken from the description's types. */
function sampleFilters(operationId: string): string[] {
  const list = spec.operation(operationId).list!;
  const queries = [''];
  for (const field of Object.values(list.filterFields)) {
    const value = field.type === 'integer' ? '1' : field.type === 'datetime' ? '2026-01-01' : field.type === 'boolean' ? 'true' : 'CT0000104';
    for (const operator of ['notNull', 'null', 'ne', 'notIn', 'notContains', 'notEmpty', 'notBetween'].filter((o) => field.operators.includes(o))) {
      const arity = spec.operators[operator].arity;
      const v = arity === 'none' ? '' : arity === 'pair' ? `=${value},${value}` : `=${value}`;
      queries.push(`filter[${field.name}][${operator}]${v}`);
    }
  }
  for (const sort of list.sortFields.slice(0, 4)) queries.push(`sort=-${sort}`);
  return queries;
}

describe('isolation', () => {
  for (const env of ['production', 'sandbox'] as Environment[]) {
    for (const role of ['customer', 'partner'] as Role[]) {
      it(`${env} ${role}: every list, every sampled filter, only own data`, async () => {
        const demo = h.sandbox.demo[env];
        const own = new Set(demo[role].contracts);
        const store = h.sandbox.svc.store;
        const caseIsOwn = (c: any) => (c.contract !== null ? own.has(c.contract) : role === 'customer' && store.get('cases', env, c.id)?.internal.customerOrg === demo.customer.org);
        const cases = (await h.call(env, role, 'GET', '/cases?page[size]=200')).json.data as any[];
        const parents = [cases[0], cases[cases.length - 1]];
        const lists = spec.operations.filter((op) => op.list && op.environments.includes(env));
        expect(lists.length).toBeGreaterThanOrEqual(7);
        let items = 0;
        for (const op of lists) {
          for (const query of sampleFilters(op.operationId)) {
            const paths = op.path.includes('{caseId}') ? parents.map((p) => op.path.replace('{caseId}', p.id)) : [op.path];
            for (const path of paths) {
              const answer = await h.call(env, role, 'GET', `${path}?page[size]=200&${query}`);
              expect(answer.status, `${path}?${query}: ${answer.text.slice(0, 200)}`).toBe(200);
              for (const item of answer.json.data) {
                items++;
                const where = `${op.operationId} ${query} ${item.id}`;
                switch (op.list!.itemSchema) {
                  case 'Case': expect(caseIsOwn(item), where).toBe(true); break;
                  case 'Comment':
                  case 'Attachment': expect(caseIsOwn(store.get('cases', env, item.case)!.record), where).toBe(true); break;
                  case 'Event': expect(own.has(item.contract), where).toBe(true); break;
                  case 'Contract': expect(own.has(item.id), where).toBe(true); break;
                  case 'ApiKey': expect(store.get('apikeys', env, item.id)?.internal.account, where).toBe(demo[role].org); break;
                  case 'Webhook': expect(store.get('webhooks', env, item.id)?.internal.account, where).toBe(demo[role].org); break;
                  default: throw new Error(`no isolation rule for ${op.list!.itemSchema}`);
                }
              }
            }
          }
        }
        expect(items).toBeGreaterThan(100);
      });
    }
  }
});
