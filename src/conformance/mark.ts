// The tag on everything the suite writes (cases, comments, labels), so people and cleanup can tell it from real data.
export const MARK = '[conformance]';
