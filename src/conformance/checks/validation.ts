// Area "validation": missing required fields give one `body.<field>: Field required` error each; an invalid contact
// e-mail is 400; the contact rules of seed section 2 for customer and partner accounts; unknown fields are 400.
import { Skip, expect, expectErrors, expectStatus, type Check } from '../check.ts';
import type { Context } from '../context.ts';
import { MARK } from '../context.ts';

/** JSON-body operations with required members, and the path parameters to call them with. */
function requiring(ctx: Context) {
  return ctx.operations().filter((op) => {
    const schema = op.requestBody?.schema as any;
    const resolved = schema?.$ref ? ctx.spec.resolve(schema.$ref) : schema;
    return op.requestBody?.contentTypes.includes('application/json') && Array.isArray(resolved?.required) && resolved.required.length > 0;
  });
}

function requiredOf(ctx: Context, operationId: string): string[] {
  const schema = ctx.spec.operation(operationId).requestBody!.schema as any;
  return (schema.$ref ? ctx.spec.resolve(schema.$ref) : schema).required;
}

/** A valid body for each such operation, to drop members from. */
export async function validBody(ctx: Context, operationId: string): Promise<Record<string, unknown>> {
  const contact = ctx.config.customer.contacts[0];
  switch (operationId) {
    case 'createCase': return { contract: await ctx.fixtures.contract(), shortDescription: `${MARK} validation` };
    case 'createCaseComment': return { text: `${MARK} validation`, contact };
    case 'createApiKey': return { label: `${MARK} validation` };
    case 'createWebhook': return { url: ctx.unusedWebhookUrl('validation'), enabled: false };
    case 'updateContract': return { externalReference: null };
    case 'triggerCaseUpdated': return { caseId: await ctx.fixtures.caseId(), updated: ['status'] };
    case 'triggerCaseAttachmentCreated': return { caseId: await ctx.fixtures.caseId(), attachmentId: (await ctx.fixtures.attachment()).id };
    case 'triggerCaseCommentCreated': return { caseId: await ctx.fixtures.caseId(), commentId: await ctx.fixtures.commentId() };
    default: return { caseId: await ctx.fixtures.caseId() };
  }
}

const detailsOf = (errors: any[]) => errors.map((e) => e.detail as string).sort();

export const validationChecks: Check[] = [
  {
    id: 'validation.required',
    area: 'validation',
    title: 'Each missing required field is its own 400 error "body.<field>: Field required"',
    statements: ['S4.case-create-required', 'S7.status-400', 'S7.error-object', 'D-24.detail'],
    needs: ['writes'],
    cases: (ctx) => requiring(ctx).map((op) => op.operationId),
    async run(ctx, op) {
      const required = requiredOf(ctx, op!);
      const params = await ctx.fixtures.pathParams(op!);
      const none = await ctx.call(ctx.customer, op!, params, { json: {} });
      const errors = expectErrors(none, 400, `${op} with {}`, required.length);
      const want = required.map((f) => `body.${f}: Field required`).sort();
      expect(JSON.stringify(detailsOf(errors)) === JSON.stringify(want), `${op} with {}: expected the details ${want.join(' | ')}, got ${detailsOf(errors).join(' | ')}`, none);
      const body = await validBody(ctx, op!);
      for (const field of required) {
        const rest = { ...body };
        delete rest[field];
        const x = await ctx.call(ctx.customer, op!, params, { json: rest });
        const [e] = expectErrors(x, 400, `${op} without ${field}`, 1);
        expect(e.detail === `body.${field}: Field required`, `${op} without ${field}: expected "body.${field}: Field required", got "${e.detail}"`, x);
      }
      return `${required.join(', ')}`;
    },
  },
  {
    id: 'validation.unknown-field',
    area: 'validation',
    title: 'An unknown body field is 400 naming it (D-35)',
    statements: ['S7.status-400', 'D-35.unknown-body'],
    needs: ['writes'],
    async run(ctx) {
      const body = { ...(await validBody(ctx, 'createCase')), conformanceNoSuchField: 1 };
      const x = await ctx.call(ctx.customer, 'createCase', {}, { json: body });
      const [e] = expectErrors(x, 400, 'createCase with an unknown field', 1);
      expect(e.detail.startsWith('body.conformanceNoSuchField'), `the error should name body.conformanceNoSuchField, got "${e.detail}"`, x);
    },
  },
  {
    id: 'validation.email',
    area: 'validation',
    title: 'An invalid contact e-mail address is 400 naming the field',
    statements: ['S2.contacts', 'S7.status-400', 'D-08.contacts'],
    needs: ['writes'],
    async run(ctx) {
      const base = await validBody(ctx, 'createCase');
      for (const [field, value, where] of [['contact', 'not-an-email', 'body.contact'], ['contact', 'ana silva@customer.example', 'body.contact'], ['watchList', ['still-not@'], 'body.watchList']] as const) {
        const x = await ctx.call(ctx.customer, 'createCase', {}, { json: { ...base, [field]: value } });
        const [e] = expectErrors(x, 400, `createCase ${field} ${JSON.stringify(value)}`, 1);
        expect(e.detail.startsWith(where), `the error should name ${where}, got "${e.detail}"`, x);
      }
      const caseId = await ctx.fixtures.caseId();
      const x = await ctx.call(ctx.customer, 'createCaseComment', { caseId }, { json: { text: `${MARK} x`, contact: 'nobody' } });
      expectErrors(x, 400, 'createCaseComment contact "nobody"', 1);
    },
  },
  {
    id: 'validation.customer-contacts',
    area: 'validation',
    title: 'Customer account: contact and watch list take customer contacts only; no partner comments (403)',
    statements: ['S2.contacts', 'S5.partner-only', 'D-08.contacts', 'D-09.comments'],
    needs: ['writes'],
    async run(ctx) {
      const own = ctx.config.customer.contacts[0];
      if (!own) throw new Skip('no customer contact in the configuration');
      const base = await validBody(ctx, 'createCase');
      const ok = await ctx.call(ctx.customer, 'createCase', {}, { json: { ...base, contact: own, watchList: [own] } });
      expectStatus(ok, 201, 'createCase with the customer contact and watch list');
      const foreign = ctx.config.partner?.contacts[0];
      if (foreign) {
        for (const body of [{ ...base, contact: foreign }, { ...base, watchList: [foreign] }]) {
          expectErrors(await ctx.call(ctx.customer, 'createCase', {}, { json: body }), 400, `createCase by the customer with the partner contact ${foreign} as ${'contact' in body ? 'contact' : 'watch list'}`, 1);
        }
      }
      const caseId = await ctx.fixtures.caseId();
      const partnerComment = await ctx.call(ctx.customer, 'createCaseComment', { caseId }, { json: { text: `${MARK} x`, contact: own, partnerComment: true } });
      expectErrors(partnerComment, 403, 'a partner comment by a customer account (D-09)');
      return foreign ? 'with partner contacts' : 'no partner contact configured: only the customer side';
    },
  },
  {
    id: 'validation.partner-contacts',
    area: 'validation',
    title: 'Partner account: partner contacts on watch lists and comments, partner comments by partner contacts only',
    statements: ['S2.contacts', 'S5.partner-only', 'S1.account-types', 'D-08.contacts', 'D-09.comments'],
    needs: ['writes', 'partner'],
    async run(ctx) {
      const partner = ctx.partnerClient();
      const mine = ctx.config.partner!.contacts[0];
      if (!mine) throw new Skip('no partner contact in the configuration');
      const contract = await ctx.fixtures.contract(partner);
      const base = { contract, shortDescription: `${MARK} partner validation` };
      const created = await ctx.call(partner, 'createCase', {}, { json: { ...base, watchList: [mine] } });
      expectStatus(created, 201, 'createCase by the partner with its own contact on the watch list');
      expectErrors(await ctx.call(partner, 'createCase', {}, { json: { ...base, contact: mine } }), 400, 'createCase by the partner with a partner contact as contact (customer contacts only)', 1);
      const caseId = created.json.data.id;
      const comment = await ctx.call(partner, 'createCaseComment', { caseId }, { json: { text: `${MARK} partner`, contact: mine } });
      expectStatus(comment, 201, 'a comment by the partner with its contact');
      const pc = await ctx.call(partner, 'createCaseComment', { caseId }, { json: { text: `${MARK} partner comment`, contact: mine, partnerComment: true } });
      expectStatus(pc, 201, 'a partner comment by a partner contact');
      expect(pc.json.data.partnerComment === true, 'the partner comment should answer partnerComment: true', pc);
      const customerContact = ctx.config.customer.contacts[0];
      if (customerContact) {
        const bad = await ctx.call(partner, 'createCaseComment', { caseId }, { json: { text: `${MARK} x`, contact: customerContact, partnerComment: true } });
        expectErrors(bad, 400, 'a partner comment whose contact is not a partner contact', 1);
      }
    },
  },
];
