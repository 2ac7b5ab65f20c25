// Handlers by operationId; the server refuses to start when an operation of the description has none.
import type { Handler } from '../context.ts';
import { apiKeyHandlers } from './apikeys.ts';
import { caseHandlers } from './cases.ts';
import { contractHandlers } from './contracts.ts';
import { eventHandlers } from './events.ts';
import { webhookHandlers } from './webhooks.ts';

export const handlers: Record<string, Handler> = { ...caseHandlers, ...contractHandlers, ...apiKeyHandlers, ...webhookHandlers, ...eventHandlers };
