// Handlers by operationId; the server refuses to start when an operation of the description has none.
import type { Handler } from '../context.ts';
import { accountHandlers } from './account.ts';
import { caseHandlers } from './cases.ts';

export const handlers: Record<string, Handler> = { ...caseHandlers, ...accountHandlers };
