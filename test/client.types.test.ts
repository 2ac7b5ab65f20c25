// Compile-time contract of the client: checked by `npx tsc --noEmit -p tsconfig.json` (every @ts-expect-error must
// be an error there, every other line must compile). The runtime part only proves the calls are well-formed.
import { describe, expectTypeOf, it } from 'vitest';
import { createCareClient, type CareClient, type CareWebhookDelivery } from '../src/client/index.ts';
import type { ListCasesFilter, ListEventsFilter } from '../generated/care-filters.ts';
import type { components } from '../generated/care-api.d.ts';

// Never called: only type-checked.
function compileOnly(client: CareClient) {
  return [
    // A valid filter of every shape: shorthand, operators by arity, lists, pairs, sameas, Date values.
    client.GET('/cases', {
      params: {
        query: {
          page: { number: 2, size: 200 },
          sort: ['status', '-created'],
          filter: {
            status: 10,
            priority: { in: [1, 2] },
            incident: { notNull: true },
            createdAt: { between: ['2026-01-01', new Date()] },
            created: { sameas: 'createdAt' },
            watchList: { contains: 'ana.silva@customer.example' },
            shortDescription: { like: 'Printer*' },
          },
        },
      },
    }),
    // @ts-expect-error unknown field
    client.GET('/cases', { params: { query: { filter: { colour: 'red' } } } }),
    // @ts-expect-error operator that does not apply to an integer field
    client.GET('/cases', { params: { query: { filter: { status: { like: '1*' } } } } }),
    // @ts-expect-error value of the wrong type for an integer field
    client.GET('/cases', { params: { query: { filter: { status: { eq: 'open' } } } } }),
    // @ts-expect-error between takes exactly two values
    client.GET('/cases', { params: { query: { filter: { priority: { between: [1, 2, 3] } } } } }),
    // Lists built at run time are accepted (an empty one is refused when sent, see client.runtime.test.ts).
    client.GET('/cases', { params: { query: { filter: { priority: { in: [1, 2].filter((p) => p > 1) } } } } }),
    // @ts-expect-error list elements have the field's type
    client.GET('/cases', { params: { query: { filter: { priority: { notIn: ['1'] } } } } }),
    // @ts-expect-error a no-value operator takes `true`, not a value
    client.GET('/cases', { params: { query: { filter: { incident: { notNull: 'yes' } } } } }),
    // @ts-expect-error sameas names a field of the same type (createdAt is a datetime, status an integer)
    client.GET('/cases', { params: { query: { filter: { status: { sameas: 'createdAt' } } } } }),
    // @ts-expect-error the eq shorthand does not exist for arrays of strings
    client.GET('/cases', { params: { query: { filter: { watchList: 'ana.silva@customer.example' } } } }),
    // @ts-expect-error not a datetime
    client.GET('/cases', { params: { query: { filter: { createdAt: { ge: 'yesterday' } } } } }),
    // @ts-expect-error a field of another resource's filter
    client.GET('/contracts', { params: { query: { filter: { shortDescription: 'x' } } } }),
    // @ts-expect-error unknown path
    client.GET('/cases/{caseId}/notes', { params: { path: { caseId: 'CS0010042' } } }),
    // @ts-expect-error path parameter missing
    client.GET('/cases/{caseId}', {}),
    // @ts-expect-error a required body field has the wrong type
    client.POST('/cases', { body: { contract: 'CT0000101', shortDescription: 42 } }),
    // @ts-expect-error paginate only walks list paths
    client.paginate('/cases/{caseId}', { params: { path: { caseId: 'CS0010042' } } }),
    // @ts-expect-error a list under a case needs its path parameter
    client.paginate('/cases/{caseId}/comments'),
    client.paginate('/cases/{caseId}/comments', { params: { path: { caseId: 'CS0010042' }, query: { filter: { partnerComment: true } } } }),
    // @ts-expect-error the trigger paths take their own bodies
    client.POST('/events/case.updated', { body: { caseId: 'CS0010042', updated: 'status' } }),
  ];
}

describe('client types', () => {
  it('narrow responses to the success body of the operation', () => {
    type CaseGet = Awaited<ReturnType<typeof getCase>>;
    const getCase = (client: CareClient) => client.GET('/cases/{caseId}', { params: { path: { caseId: 'CS0010042' } } });
    expectTypeOf<CaseGet['data']>().toEqualTypeOf<components['schemas']['CaseResponse']>();
    expectTypeOf<CaseGet['environment']>().toEqualTypeOf<'Production' | 'Sandbox' | null>();
  });

  it('type paginate items by the list path', () => {
    const items = (client: CareClient) => client.paginate('/cases', { params: { query: { filter: { status: 10 } } } });
    expectTypeOf<ReturnType<typeof items>>().toEqualTypeOf<AsyncGenerator<components['schemas']['Case'], void, undefined>>();
  });

  it('derive filters per list operation', () => {
    expectTypeOf<ListCasesFilter['status']>().toMatchTypeOf<number | { in?: readonly number[] } | undefined>();
    expectTypeOf<keyof ListEventsFilter>().not.toEqualTypeOf<keyof ListCasesFilter>();
  });

  it('discriminate webhook deliveries on the event type', () => {
    const handle = (delivery: CareWebhookDelivery) => {
      if (delivery.eventType === 'case.updated') {
        // `updated` is declared and required in CaseUpdatedEvent's allOf, so it is never undefined here.
        expectTypeOf(delivery.payload.meta.updated).toEqualTypeOf<string[]>();
        return delivery.payload.data.id;
      }
      if (delivery.eventType === 'case.comment.created') {
        expectTypeOf(delivery.payload).toEqualTypeOf<components['schemas']['CaseCommentCreatedEvent']>();
      }
      return undefined;
    };
    expectTypeOf(handle).parameter(0).toEqualTypeOf<CareWebhookDelivery>();
    expectTypeOf(compileOnly).toBeFunction();
    expectTypeOf(createCareClient).returns.toEqualTypeOf<CareClient>();
  });
});
