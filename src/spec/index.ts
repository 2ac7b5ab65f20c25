// The description reader: everything else reads operations, filters and schemas from the bundle through here.
export { loadSpec, specFromDocument, bundlePath, repoRoot } from './load.ts';
export { ajvFor, validatorFor, DOCUMENT_ID } from './ajv.ts';
export { resolvePointer, deref, refName } from './refs.ts';
export { readDeprecation, isComplete, deprecationHeaders } from './deprecation.ts';
export type { Deprecation } from './deprecation.ts';
export type * from './types.ts';
export { readLimits, byteSize } from './limits.ts';
export type { ServiceLimits } from './limits.ts';
export { readDeliveries } from './deliveries.ts';
export type { DeliverySchedule } from './deliveries.ts';
export { rateLimitFieldNames } from './rate-limit-fields.ts';
