// Cases, their comments and attachments (seed section 4), scoped by contract (section 5) with contact rules (section 2).
import { caseScope, contactProblem, hiddenFromCustomer, keptContactProblems, normaliseEmail, requireCase, requireContract } from '../access.ts';
import type { Ctx, Handler, Reply } from '../context.ts';
import { addAttachment, addComment, createCase, updateCase } from '../domain.ts';
import { readUpload } from '../http/body.ts';
import { forbidden, notFound } from '../http/envelope.ts';
import type { Problem } from '../http/envelope.ts';
import type { Stored } from '../store/types.ts';
import { checkContractFilters, created, listReply, readListQuery, throwIfProblems } from './common.ts';

/** D-77: contact addresses kept with their domain in lower case. */
function normaliseContacts(body: Record<string, any>): void {
  if (typeof body.contact === 'string') body.contact = normaliseEmail(body.contact);
  if (Array.isArray(body.watchList)) body.watchList = body.watchList.map((e: unknown) => (typeof e === 'string' ? normaliseEmail(e) : e));
}

function checkCaseContacts(ctx: Ctx, customerOrg: string | null, body: Record<string, any>, kept: Problem[] = []): void {
  const { store } = ctx.svc;
  normaliseContacts(body);
  const problems: Array<Problem | null> = [...kept];
  if (typeof body.contact === 'string') problems.push(contactProblem(store, ctx.env, ctx.account, customerOrg, body.contact, 'customer', 'body.contact'));
  if (Array.isArray(body.watchList)) {
    body.watchList.forEach((email: string, i: number) =>
      problems.push(contactProblem(store, ctx.env, ctx.account, customerOrg, email, 'customerOrPartner', `body.watchList.${i}`)),
    );
  }
  throwIfProblems(problems);
}

/** The case the path names, when this account may see it (else 404 or 403). */
const pathCase = (ctx: Ctx): Stored => requireCase(ctx.svc.store, ctx.env, ctx.account, ctx.params.caseId);

/** The comments or attachments of the case the path names, as a list answer. */
function listOfPathCase(ctx: Ctx, resource: 'comments' | 'attachments'): Reply {
  const customerView = resource === 'comments' && ctx.account.kind === 'customer'; // D-79
  return listReply(ctx, resource, { by: 'case', values: [pathCase(ctx).record.id], customerView }, readListQuery(ctx));
}

function childOf(ctx: Ctx, resource: 'comments' | 'attachments', caseStored: Stored, id: string, param: string): Stored {
  const child = ctx.svc.store.get(resource, ctx.env, id);
  const hidden = child && resource === 'comments' && hiddenFromCustomer(ctx.account, 'comments', child.record); // D-79
  if (!child || hidden || child.record.case !== caseStored.record.id) throw notFound(`${param}: ${resource === 'comments' ? 'comment' : 'attachment'} ${id} not found on case ${caseStored.record.id}`);
  return child;
}

export const caseHandlers: Record<string, Handler> = {
  listCases(ctx) {
    const query = readListQuery(ctx);
    checkContractFilters(ctx, query);
    return listReply(ctx, 'cases', caseScope(ctx.svc.store, ctx.env, ctx.account), query);
  },

  async createCase(ctx) {
    const body = await ctx.body();
    const contract = requireContract(ctx.svc.store, ctx.env, ctx.account, body.contract, 'body.contract');
    checkCaseContacts(ctx, contract.internal.customerOrg ?? null, body);
    const record = createCase(ctx.svc, ctx.env, { ...body, contract: body.contract, customerOrg: contract.internal.customerOrg! } as any, ctx.account.id);
    return created(ctx, record, 'cases', record.id);
  },

  getCase(ctx) {
    return { status: 200, data: pathCase(ctx).record };
  },

  async updateCase(ctx) {
    pathCase(ctx); // 404 or 403 before a body is read
    const body = await ctx.body();
    // Decided on the case as stored once the body has arrived (D-86): a write that landed meanwhile is built upon.
    return ctx.svc.store.transaction(() => {
      const before = pathCase(ctx);
      let customerOrg = before.internal.customerOrg ?? null;
      let kept: Problem[] = [];
      if (Object.hasOwn(body, 'contract')) {
        const contract = requireContract(ctx.svc.store, ctx.env, ctx.account, body.contract, 'body.contract');
        customerOrg = contract.internal.customerOrg ?? null;
        if (body.contract !== before.record.contract) kept = keptContactProblems(ctx.svc.store, ctx.env, before, contract, body);
      }
      checkCaseContacts(ctx, customerOrg, body, kept);
      return { status: 200, data: updateCase(ctx.svc, ctx.env, before, body, ctx.account.id) };
    });
  },

  listCaseComments(ctx) {
    return listOfPathCase(ctx, 'comments');
  },

  async createCaseComment(ctx) {
    pathCase(ctx);
    const body = await ctx.body();
    return ctx.svc.store.transaction(() => {
      const caseStored = pathCase(ctx); // as it is now: the case may have moved to another contract meanwhile (D-86)
      const partnerComment = body.partnerComment === true;
      if (partnerComment && ctx.account.kind !== 'partner') {
        throw forbidden('body.partnerComment: partner comments are for partner accounts only', 'partner_only');
      }
      body.contact = normaliseEmail(body.contact);
      throwIfProblems([
        contactProblem(ctx.svc.store, ctx.env, ctx.account, caseStored.internal.customerOrg ?? null, body.contact, partnerComment ? 'partner' : 'customerOrPartner', 'body.contact'),
      ]);
      const record = addComment(ctx.svc, ctx.env, caseStored, { text: body.text, contact: body.contact, partnerComment }, ctx.account.id);
      return created(ctx, record, 'cases', caseStored.record.id, 'comments', record.id);
    });
  },

  getCaseComment(ctx) {
    const caseStored = pathCase(ctx);
    return { status: 200, data: childOf(ctx, 'comments', caseStored, ctx.params.commentId, 'path.commentId').record };
  },

  listCaseAttachments(ctx) {
    return listOfPathCase(ctx, 'attachments');
  },

  async uploadCaseAttachment(ctx) {
    pathCase(ctx);
    const file = await readUpload(ctx.req, ctx.svc.spec);
    return ctx.svc.store.transaction(() => {
      const caseStored = pathCase(ctx); // as it is now, after the upload arrived (D-86)
      const record = addAttachment(ctx.svc, ctx.env, caseStored, file, ctx.account.id);
      return created(ctx, record, 'cases', caseStored.record.id, 'attachments', record.id);
    });
  },

  getCaseAttachment(ctx) {
    const caseStored = pathCase(ctx);
    return { status: 200, data: childOf(ctx, 'attachments', caseStored, ctx.params.attachmentId, 'path.attachmentId').record };
  },

  downloadCaseAttachment(ctx) {
    const caseStored = pathCase(ctx);
    const attachment = childOf(ctx, 'attachments', caseStored, ctx.params.attachmentId, 'path.attachmentId');
    const bytes = ctx.svc.store.attachmentContent(ctx.env, attachment.record.id) ?? Buffer.alloc(0);
    return {
      status: 200,
      // a type stored before D-93 may be a wildcard (`*/*`): never sent as a Content-Type
      raw: { bytes, contentType: servedType(attachment.record.contentType) },
      headers: { 'Content-Disposition': contentDisposition(attachment.record.fileName) },
    };
  },
};

// A stored type as a Content-Type: one stored before D-93 may be a range of types (any type, image/ any), naming no file.
function servedType(stored: string): string {
  return stored.includes('*') || !stored.includes('/') ? 'application/octet-stream' : stored;
}

/** `attachment; filename="..."` (RFC 6266), with an RFC 8187 `filename*` when the name is not plain ASCII. */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const plain = /^[\x20-\x7e]*$/.test(fileName);
  return plain && ascii === fileName
    ? `attachment; filename="${ascii}"`
    : `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())}`;
}
