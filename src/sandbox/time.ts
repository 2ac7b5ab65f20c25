// Timestamps as the API writes them. A module of its own: the dispatcher and the store use it without the handler
// context (context.ts), which imports the dispatcher's type.

/** ISO UTC with milliseconds (D-39). */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A timestamp strictly after `previous`, so `updatedAt` changes on every update even within one millisecond. */
export function after(previous: string | null | undefined, now: number): string {
  const last = previous ? Date.parse(previous) : -Infinity;
  return iso(Math.max(now, last + 1));
}
