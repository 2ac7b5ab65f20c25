// The input coercion table of seed section 1, row by row, through the sandbox's HTTP interface: JSON bodies and query
// strings. Rows whose type no field of the description has (float, date, time, timedelta) cannot be reached over
// HTTP; the grammar's own tests cover them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness } from './helpers/sandbox.ts';
import type { Harness } from './helpers/sandbox.ts';

let h: Harness;
let caseId: string;
beforeAll(async () => {
  h = await startHarness();
  const list = await h.call('sandbox', 'partner', 'GET', `/cases?page[size]=1&filter[contract]=${h.sandbox.demo.sandbox.customer.contracts[0]}`);
  caseId = list.json.data[0].id;
});
afterAll(() => h?.close());

const patchCase = (body: unknown) => h.call('sandbox', 'partner', 'PATCH', `/cases/${caseId}`, body);

describe('integer (body: case priority)', () => {
  for (const [input, expected] of [[2, 2], [2.0, 2], ['3', 3], ['4.0', 4], ['1.', 1]] as Array<[unknown, number]>) {
    it(`accepts ${JSON.stringify(input)} as ${expected}`, async () => {
      const answer = await patchCase({ priority: input });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json.data.priority).toBe(expected);
    });
  }
  for (const [input, code] of [[2.5, 'int_from_float'], ['2.5', 'int_parsing'], ['two', 'int_parsing'], [true, 'int_type'], [[2], 'int_type'], [9, 'enum']] as Array<[unknown, string]>) {
    it(`refuses ${JSON.stringify(input)} (${code})`, async () => {
      const answer = await patchCase({ priority: input });
      expect(answer.status).toBe(400);
      expect(answer.json.errors).toEqual([expect.objectContaining({ code, detail: expect.stringMatching(/^body\.priority: /) })]);
    });
  }
});

describe('boolean (body: partnerComment, webhook enabled)', () => {
  const truthy = ['True', 'true', 't', 'on', 'yes', 'y', '1', 1, true];
  const falsy = ['False', 'false', 'f', 'off', 'no', 'n', '0', 0, false];
  it('accepts every true and false form of the table', async () => {
    for (const [inputs, expected] of [[truthy, true], [falsy, false]] as Array<[unknown[], boolean]>) {
      for (const input of inputs) {
        const answer = await h.call('sandbox', 'partner', 'POST', `/cases/${caseId}/comments`, { text: 'b', contact: 'jonas.berg@partner.example', partnerComment: input });
        expect(answer.status, `${JSON.stringify(input)}: ${answer.text}`).toBe(201);
        expect(answer.json.data.partnerComment).toBe(expected);
      }
    }
  });
  it('refuses other values', async () => {
    for (const input of ['maybe', 2, 'TRUEE', '', null]) {
      const answer = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: 'http://127.0.0.1:9/', enabled: input });
      expect(answer.status, JSON.stringify(input)).toBe(400);
      expect(answer.json.errors[0].detail).toMatch(/^body\.enabled: /);
    }
  });
});

describe('datetime (body: API key expiresAt)', () => {
  const rows: Array<[unknown, string]> = [
    ['2099-01-01', '2099-01-01T00:00:00.000Z'],
    ['2099-01-01T10:00', '2099-01-01T10:00:00.000Z'],
    ['2099-01-01 10:00:05Z', '2099-01-01T10:00:05.000Z'],
    ['2099-01-01T10:00:00.123456+02:00', '2099-01-01T08:00:00.123Z'],
    ['2099-01-01T10:00-0130', '2099-01-01T11:30:00.000Z'],
    [4102444800, '2100-01-01T00:00:00.000Z'],
    ['4102444800', '2100-01-01T00:00:00.000Z'],
  ];
  for (const [input, expected] of rows) {
    it(`reads ${JSON.stringify(input)} as ${expected}`, async () => {
      const answer = await h.call('sandbox', 'customer', 'POST', '/apikeys', { label: 'dt', expiresAt: input });
      expect(answer.status, answer.text).toBe(201);
      expect(answer.json.data.expiresAt).toBe(expected);
    });
  }
  for (const input of ['2099-13-01', 'tomorrow', '2099-02-30T00:00', true]) {
    it(`refuses ${JSON.stringify(input)}`, async () => {
      const answer = await h.call('sandbox', 'customer', 'POST', '/apikeys', { label: 'dt', expiresAt: input });
      expect(answer.status).toBe(400);
      expect(answer.json.errors[0].detail).toMatch(/^body\.expiresAt: /);
    });
  }
});

describe('array and string (body: watchList, eventTypes, shortDescription)', () => {
  it('accepts a JSON array or a comma-separated string', async () => {
    const a = await patchCase({ watchList: ['ana.silva@customer.example', 'jonas.berg@partner.example'] });
    const b = await patchCase({ watchList: 'ana.silva@customer.example,jonas.berg@partner.example' });
    expect(a.status).toBe(200);
    expect(b.json.data.watchList).toEqual(a.json.data.watchList);
    const hook = await h.call('sandbox', 'customer', 'POST', '/webhooks', { url: 'http://127.0.0.1:9/', eventTypes: 'case.updated,case.comment.*' });
    expect(hook.json.data.eventTypes).toEqual(['case.updated', 'case.comment.*']);
  });
  it('refuses a number for a string and points at array items', async () => {
    const answer = await patchCase({ shortDescription: 42, watchList: ['ana.silva@customer.example', 7] });
    expect(answer.status).toBe(400);
    expect(answer.json.errors.map((e: any) => e.detail.split(':')[0]).sort()).toEqual(['body.shortDescription', 'body.watchList.1']);
  });
});

describe('query strings', () => {
  const count = async (query: string, path = '/cases') => {
    const answer = await h.call('sandbox', 'partner', 'GET', `${path}?page[size]=1&${query}`);
    expect(answer.status, `${query}: ${answer.text}`).toBe(200);
    return answer.json.meta.page.totalCount as number;
  };
  it('reads integers as the table says', async () => {
    expect(await count('filter[priority]=2.0')).toBe(await count('filter[priority]=2'));
    const bad = await h.call('sandbox', 'partner', 'GET', '/cases?filter[priority]=2.5');
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].detail).toMatch(/^query\.filter\.priority\.eq: /);
  });
  it('reads datetimes as the table says: date, offset, Unix time', async () => {
    const iso = await count('filter[createdAt][ge]=2026-06-01T00:00:00Z');
    expect(await count('filter[createdAt][ge]=2026-06-01')).toBe(iso);
    expect(await count('filter[createdAt][ge]=2026-06-01T02:00%2B02:00')).toBe(iso);
    expect(await count(`filter[createdAt][ge]=${Date.parse('2026-06-01T00:00:00Z') / 1000}`)).toBe(iso);
  });
  it('reads booleans as the table says', async () => {
    const path = `/cases/${caseId}/comments`;
    expect(await count('filter[partnerComment]=yes', path)).toBe(await count('filter[partnerComment]=true', path));
    expect(await count('filter[partnerComment]=0', path)).toBe(await count('filter[partnerComment]=false', path));
  });
});
