// The service-wide limits (D-100): the root `x-care-limits` of the description, the one place they are stated. The
// sandbox, the mock front and the conformance suite read them here; none of them keeps a number of its own.

/** Limits of one request, whatever the operation (values of `x-care-limits`). */
export interface ServiceLimits {
  /** Request line and header fields together, in bytes: a longer URL (query) or header is 431. */
  requestHeadBytes: number;
  /** Levels a JSON body may nest, objects and arrays counted together (D-87). */
  jsonDepth: number;
  /** Whole request body per media type, in bytes: more is 413 (an upload is bounded by its parts, `multipart`). */
  bodyBytes: Record<'application/json' | 'application/x-www-form-urlencoded', number>;
  /** A multipart/form-data upload (D-10, D-93). */
  multipart: {
    /** Content of the `file` part, in bytes: exactly this many are accepted, one more is 413. */
    fileBytes: number;
    /** Parts read at most; the `file` part must be among them. */
    parts: number;
    /** Code points of a file name kept; the rest is cut. */
    fileNameCodePoints: number;
  };
  /** Error objects one answer holds at most: `maxItems` of the ErrorEnvelope schema's `errors` (D-101). */
  errorObjects: number;
}

const MEDIA_TYPES = ['application/json', 'application/x-www-form-urlencoded'] as const;

function positive(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new Error(`x-care-limits: ${where} must be a positive integer, found ${JSON.stringify(value)}`);
  }
  return value;
}

/** The limits of a bundle; a bundle without them, or with one missing, is an error (nothing falls back to a number). */
export function readLimits(document: any): ServiceLimits {
  const raw = document?.['x-care-limits'];
  if (!raw || typeof raw !== 'object') throw new Error('the description declares no x-care-limits at its root');
  const bodies = raw.bodyBytes ?? {};
  const multipart = raw.multipart ?? {};
  return {
    requestHeadBytes: positive(raw.requestHeadBytes, 'requestHeadBytes'),
    jsonDepth: positive(raw.jsonDepth, 'jsonDepth'),
    bodyBytes: Object.fromEntries(MEDIA_TYPES.map((type) => [type, positive(bodies[type], `bodyBytes.${type}`)])) as ServiceLimits['bodyBytes'],
    multipart: {
      fileBytes: positive(multipart.fileBytes, 'multipart.fileBytes'),
      parts: positive(multipart.parts, 'multipart.parts'),
      fileNameCodePoints: positive(multipart.fileNameCodePoints, 'multipart.fileNameCodePoints'),
    },
    errorObjects: positive(document?.components?.schemas?.ErrorEnvelope?.properties?.errors?.maxItems, 'ErrorEnvelope errors maxItems'),
  };
}

/** A byte count as people read it: `1 MiB`, `16 KiB`, else bytes. */
export function byteSize(bytes: number): string {
  for (const [unit, size] of [['MiB', 1 << 20], ['KiB', 1 << 10]] as const) {
    if (bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}
