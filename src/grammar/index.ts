// The query grammar of seed section 1: coercion, parse, serialize, evaluate. Pure: no I/O.
export { coerceValue } from './coerce.ts';
export type { CoercionType, CoercionSource, CoercedValue, Coerced } from './coerce.ts';
export { splitList, joinList, escapeListValue } from './list-values.ts';
export type { SplitResult } from './list-values.ts';
export { parseListQuery, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './parse.ts';
export type { ParsedListQuery } from './parse.ts';
export { serializeListQuery, serializeFilter, careQuerySerializer, formatValue, fallbackArity } from './serialize.ts';
export type { ListQueryInput, OperatorArities } from './serialize.ts';
export { matchesFilters, matchesClause, compareBySort, positiveOf } from './evaluate.ts';
export { compareCodePoints, compareTyped, instantOf } from './compare.ts';
export { regexProblem, likeProblem, compileRegex, compileLike, requiredLiteral, likeOfRegex, MAX_REGEX_LENGTH, MAX_LIKE_LENGTH, MAX_REGEX_PROGRAM } from './regex.ts';
export type { Pattern } from './regex.ts';
export { valueCoercion } from './value-types.ts';
export type * from './types.ts';
