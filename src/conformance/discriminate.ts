// Does the data tell an operator apart from its neighbours? A neighbour is a plausible wrong reading of the
// operator (another operator with the same value, or a variant such as case-insensitive matching, `like` with
// literal `*`, `between` without its ends). An operator is discriminated on a set of items when, for each neighbour,
// some value makes the model (src/grammar's evaluator) answer a different set than the neighbour would; a target
// that answers that value exactly as the model says is then not implementing the neighbour. Pure: no I/O.
import { RE2JS } from 're2js';
import { compileLike, matchesClause, regexProblem } from '../grammar/index.ts';
import type { FilterClause } from '../grammar/types.ts';
import type { FilterFieldSpec, OperatorSpec } from '../spec/types.ts';

type Item = Record<string, unknown>;

/** How a result says the data did not tell an operator apart (a skip reason, never a pass). */
export const NOT_DISCRIMINATED = 'not discriminated';
export type Predicate = (item: Item) => boolean;

export interface Neighbour {
  name: string;
  /** The neighbour's answer for a value, or undefined when the neighbour cannot read that value (never confusable). */
  matcher(value: unknown): Predicate | undefined;
}

const TEXT_OPS = ['startswith', 'contains', 'endswith', 'like', 'match'];
const NULL_OPS = ['null', 'empty', 'notExists'];
const isNullish = (v: unknown) => v === null || v === undefined;

function clause(field: FilterFieldSpec, operator: string, value: unknown, operators: Record<string, OperatorSpec>): FilterClause {
  const values = operators[operator]?.arity === 'none' ? [] : Array.isArray(value) ? value : [value as string | number | boolean];
  return { field: field.name, operator, type: field.type, values };
}

/** Whether `value` is one the operator's grammar accepts (a `match` pattern must compile). */
function readable(operator: string, value: unknown): boolean {
  if ((operator === 'match' || operator === 'notMatch') && typeof value === 'string') return regexProblem(value) === null;
  return true;
}

/** The model's answer: items satisfying `field operator value`. */
export function modelMatcher(field: FilterFieldSpec, operator: string, value: unknown, operators: Record<string, OperatorSpec>): Predicate | undefined {
  if (!readable(operator, value)) return undefined;
  const c = clause(field, operator, value, operators);
  return (item) => matchesClause(item, c, operators);
}

/** The same positive text test, but blind to case (a common slip: ILIKE, COLLATE NOCASE, lower()). */
function caseBlind(field: FilterFieldSpec, operator: string, value: unknown): Predicate | undefined {
  if (typeof value !== 'string') return undefined;
  const text = (item: Item) => (typeof item[field.name] === 'string' ? (item[field.name] as string) : undefined);
  const v = value.toLowerCase();
  switch (operator) {
    case 'eq': return (i) => text(i)?.toLowerCase() === v;
    case 'contains': return (i) => text(i)?.toLowerCase().includes(v) ?? false;
    case 'startswith': return (i) => text(i)?.toLowerCase().startsWith(v) ?? false;
    case 'endswith': return (i) => text(i)?.toLowerCase().endsWith(v) ?? false;
    case 'like': { const pattern = compileLike(v); return (i) => text(i) !== undefined && pattern.test(text(i)!.toLowerCase()); }
    case 'match': {
      // RE2 syntax, as the grammar's own `match` (D-68): a JavaScript RegExp refuses some of it (`\-` under `u`).
      if (regexProblem(value)) return undefined;
      const re = RE2JS.compile(value, RE2JS.CASE_INSENSITIVE);
      return (i) => text(i) !== undefined && re.test(text(i)!);
    }
  }
  return undefined;
}

/** `like` with the SQL wildcards `%` and `_` also read as wildcards (a pattern passed to SQL LIKE unescaped). */
function sqlLike(field: FilterFieldSpec, value: unknown): Predicate | undefined {
  if (typeof value !== 'string') return undefined;
  let source = '';
  for (const ch of value) {
    if (ch === '*' || ch === '%') source += '[^]*';
    else if (ch === '?' || ch === '_') source += '[^]';
    else source += ch.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
  }
  const re = new RegExp(`^${source}$`, 'u');
  return (i) => typeof i[field.name] === 'string' && re.test(i[field.name] as string);
}

/** Neighbours of a positive operator on a field; a negative operator's neighbours are their complements. */
function positiveNeighbours(field: FilterFieldSpec, operator: string, operators: Record<string, OperatorSpec>): Neighbour[] {
  const applies = (op: string) => field.operators.includes(op);
  const asOperator = (op: string): Neighbour => ({ name: op, matcher: (v) => modelMatcher(field, op, v, operators) });
  const out: Neighbour[] = [];
  const text = field.type === 'string';
  if (TEXT_OPS.includes(operator) && text) {
    for (const other of TEXT_OPS) if (other !== operator && applies(other)) out.push(asOperator(other));
    out.push({ name: `${operator} ignoring case`, matcher: (v) => caseBlind(field, operator, v) });
    if (operator === 'like') {
      out.push({ name: 'like with * and ? taken literally', matcher: (v) => modelMatcher(field, 'eq', v, operators) });
      out.push({ name: 'like with SQL % and _ as wildcards', matcher: (v) => sqlLike(field, v) });
    }
    if (operator === 'match') {
      out.push({ name: 'match with metacharacters taken literally', matcher: (v) => modelMatcher(field, 'contains', v, operators) });
      out.push({ name: 'match anchored at both ends', matcher: (v) => (typeof v === 'string' && !regexProblem(v) ? modelMatcher(field, 'match', `^(?:${v})$`, operators) : undefined) });
    }
  }
  if (operator === 'contains' && field.type === 'stringArray') {
    out.push({ name: 'contains as a substring of an element', matcher: (v) => (i) => Array.isArray(i[field.name]) && (i[field.name] as unknown[]).some((e) => typeof e === 'string' && typeof v === 'string' && e.includes(v)) });
  }
  if (operator === 'eq' && text) out.push({ name: 'eq ignoring case', matcher: (v) => caseBlind(field, 'eq', v) });
  const pairs: Record<string, string> = { lt: 'le', le: 'lt', gt: 'ge', ge: 'gt' };
  if (pairs[operator] && applies(pairs[operator])) out.push(asOperator(pairs[operator]));
  if (operator === 'between') {
    out.push({ name: 'between without its ends', matcher: (v) => {
      const [lo, hi] = v as unknown[];
      const gt = modelMatcher(field, 'gt', lo, operators);
      const lt = modelMatcher(field, 'lt', hi, operators);
      return gt && lt ? (i) => gt(i) && lt(i) : undefined;
    } });
  }
  if (NULL_OPS.includes(operator)) for (const other of NULL_OPS) if (other !== operator && applies(other)) out.push(asOperator(other));
  return out;
}

export function neighboursOf(field: FilterFieldSpec, operator: string, operators: Record<string, OperatorSpec>): Neighbour[] {
  const positive = operators[operator]?.negationOf;
  // notExists is itself one of the null/empty/notExists trio the issue asks to tell apart.
  if (!positive || operator === 'notExists') return positiveNeighbours(field, operator, operators);
  // notX against notY is X against Y on the same items: complement each neighbour of the positive.
  return positiveNeighbours(field, positive, operators).map((n) => ({
    name: `not ${n.name}`,
    matcher(value) {
      const m = n.matcher(value);
      return m && ((i) => !m(i));
    },
  }));
}

export interface Verdict {
  /** Neighbours no tested value told apart, each with why. */
  undiscriminated: string[];
  /** The values chosen to test (a small cover: each distinguishes at least one neighbour, or the first candidate). */
  chosen: unknown[];
}

const key = (items: Item[], p: Predicate) => items.map((i) => (p(i) ? '1' : '0')).join('');

/**
 * Choose, among candidate values, a few that together tell the operator apart from every neighbour on `items`
 * (greedy cover), and say which neighbours no candidate tells apart.
 */
export function chooseValues(items: Item[], field: FilterFieldSpec, operator: string, candidates: unknown[], operators: Record<string, OperatorSpec>): Verdict {
  const neighbours = neighboursOf(field, operator, operators);
  const usable = candidates.filter((v) => modelMatcher(field, operator, v, operators) !== undefined);
  const separates = usable.map((v) => {
    const model = key(items, modelMatcher(field, operator, v, operators)!);
    return new Set(neighbours.filter((n) => {
      const m = n.matcher(v);
      return m === undefined || key(items, m) !== model;
    }).map((n) => n.name));
  });
  const open = new Set(neighbours.map((n) => n.name));
  const chosen: unknown[] = [];
  while (open.size > 0) {
    let best = -1;
    let gain = 0;
    separates.forEach((s, i) => {
      const g = [...s].filter((n) => open.has(n)).length;
      if (g > gain) { gain = g; best = i; }
    });
    if (best < 0) break;
    chosen.push(usable[best]);
    for (const n of separates[best]) open.delete(n);
  }
  // Prefer a value with a non-trivial answer as the first, so the answer itself is checked on real members.
  if (chosen.length === 0 && usable.length > 0) {
    const nonTrivial = usable.find((v) => { const k = key(items, modelMatcher(field, operator, v, operators)!); return k.includes('1') && k.includes('0'); });
    chosen.push(nonTrivial ?? usable[0]);
  }
  return { undiscriminated: [...open], chosen };
}

/** Candidate values for a field's operator, drawn from the items (parts of real values, bounds on/between them). */
export function candidatesFor(items: Item[], field: FilterFieldSpec, arity: string, otherFields: FilterFieldSpec[]): unknown[] {
  if (arity === 'none') return [true];
  if (arity === 'field') {
    const others = otherFields.filter((f) => f.name !== field.name && f.type === field.type).map((f) => f.name);
    // With no other field of its type, the field compared with itself still has an answer to check.
    return others.length ? others : [field.name];
  }
  const raw = items.map((i) => i[field.name]).filter((v) => !isNullish(v));
  const flat = field.type === 'stringArray' ? raw.flat().filter((v) => typeof v === 'string') : raw;
  const distinct = [...new Set(flat.map((v) => JSON.stringify(v)))].map((s) => JSON.parse(s)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (distinct.length === 0) return [];
  if (arity === 'list') return [[distinct[0]], distinct.slice(0, 2), [distinct[distinct.length - 1]]];
  if (arity === 'pair') {
    const out: unknown[] = [];
    for (let i = 0; i < distinct.length; i++) for (let j = i; j < Math.min(distinct.length, i + 3); j++) out.push([distinct[i], distinct[j]]);
    return out;
  }
  if (field.type !== 'string' && field.type !== 'stringArray') return distinct;
  const out = new Set<string>();
  for (const s of distinct as string[]) {
    out.add(s);
    out.add(s.toUpperCase());
    out.add(s.toLowerCase());
    if (field.type === 'stringArray') { out.add(s.slice(0, Math.max(1, s.length - 3))); continue; }
    const n = [...s].length;
    const k = Math.min(5, Math.max(1, n - 1));
    const pre = s.slice(0, k);
    const suf = s.slice(-k);
    const mid = n > 4 ? s.slice(1, Math.min(n - 1, 7)) : s;
    for (const part of [pre, suf, mid]) {
      out.add(part);
      out.add(part.toUpperCase());
      out.add(part.toLowerCase());
    }
    out.add(`${pre}*`);
    out.add(`*${suf}`);
    out.add(`*${mid}*`);
    out.add(`${pre.toLowerCase()}*`);
    out.add(`${pre.toUpperCase()}*`);
    out.add(`*${suf.toUpperCase()}`);
    out.add(`${s.slice(0, 1)}?${s.slice(2)}`);
    out.add(`${pre}%`);
    out.add(`${s.slice(0, 1)}_${s.slice(2)}`);
    out.add(s.replace(/[*?]/g, '?'));
    const esc = (t: string) => t.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
    out.add(`^${esc(pre)}`);
    out.add(`${esc(suf)}$`);
    out.add(esc(mid));
    out.add(`^${esc(s.slice(0, 1))}.${esc(s.slice(2, k + 1))}`);
    out.add(esc(mid).toLowerCase());
  }
  return [...out].filter((v) => v.length > 0);
}

/** How many field/operator pairs the run discriminated, of those it tried (for the console summary). */
export function discriminationSummary(results: Array<{ id: string; status: string; reason?: string }>): { discriminated: number; not: number } | undefined {
  const mine = results.filter((r) => r.id.startsWith('filters.discriminated['));
  if (mine.length === 0) return undefined;
  return {
    discriminated: mine.filter((r) => r.status === 'passed').length,
    not: mine.filter((r) => r.status === 'skipped' && (r.reason ?? '').startsWith(NOT_DISCRIMINATED)).length,
  };
}
