// Public entry of the Care API client.
export { createCareClient } from './create-client.ts';
export type { CareClient, CareClientOptions, FetchLike, AttachmentRecord, DownloadedAttachment } from './create-client.ts';
export { CareApiError, CarePaginationError, CareTokenError, MAX_RETRY_AFTER_SECONDS, servedBy } from './errors.ts';
export { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from './signals.ts';
export { CARE_API_VERSION } from '../../generated/care-version.ts';
export { createdLocation } from './location.ts';
export type { CareApiErrorReason, CareErrorObject, ServedBy } from './errors.ts';
export { baseUrlFor, DEFAULT_HOST } from './base-url.ts';
export type { CareEnvironment } from './base-url.ts';
export { DEFAULT_AUTH_URL, apiKeyExchange } from './auth.ts';
export type { ApiKeyCredentials, TokenProvider, TokenResult } from './auth.ts';
export type { AttachmentSource, UploadOptions } from './attachments.ts';
export type { CarePaths, CareResponse, CareListPath, CareListItem, CareListPage, SuccessData } from './types.ts';
export type * from '../../generated/care-filters.ts';
export {
  verifyWebhook,
  verifyWebhookRequest,
  WebhookVerificationError,
  DEFAULT_TOLERANCE_SECONDS,
  MAX_TOLERANCE_SECONDS,
} from './webhooks.ts';
export type {
  CareWebhookDelivery,
  CareWebhookEventType,
  CareWebhookPayload,
  VerifyWebhookOptions,
  WebhookAuthorizationConfig,
  WebhookRejection,
} from './webhooks.ts';
