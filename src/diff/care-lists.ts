// The description's own list semantics, which no generic diff knows (D-21, D-22): filterable fields with their
// `x-care-value-type` and operators (the *Filter schemas), sortable fields (the *Sort enums) and the operators'
// arity (`FilterOperator` `x-care-operators`). A client that filtered or sorted on something that goes is refused
// 400, so a removal breaks; an addition does not.
import { deref } from '../spec/refs.ts';
import { readOperators } from '../spec/operators.ts';
import { common, parametersOf, sideOperations, type SideOperation } from './operations.ts';
import { makeChange, toPointer } from './pointer.ts';
import type { Change, RuleFindings } from './types.ts';

interface FilterField {
  type: unknown;
  operators: string[];
}

interface ListSide {
  filterPointer?: string;
  fields: Map<string, FilterField>;
  sortPointer?: string;
  sortFields: Set<string>;
}

function listSide(document: any, side: SideOperation): ListSide | undefined {
  const parameters = parametersOf(document, side).filter(({ parameter }) => parameter?.in === 'query');
  const filter = parameters.find(({ parameter }) => parameter.name === 'filter');
  const sort = parameters.find(({ parameter }) => parameter.name === 'sort');
  if (!filter && !sort) return undefined;
  const fields = new Map<string, FilterField>();
  const filterSchema = deref(document, filter?.parameter.schema);
  for (const [name, raw] of Object.entries<any>(filterSchema?.properties ?? {})) {
    const field = deref(document, raw) ?? {};
    fields.set(name, { type: field['x-care-value-type'], operators: Object.keys(field.properties ?? {}) });
  }
  const sortItems = deref(document, deref(document, sort?.parameter.schema)?.items);
  const sortFields = new Set<string>((sortItems?.enum ?? []).map((entry: unknown) => String(entry).replace(/^-/, '')));
  return {
    ...(filter ? { filterPointer: `${filter.pointer}/schema` } : {}),
    fields,
    ...(sort ? { sortPointer: `${sort.pointer}/schema/items/enum` } : {}),
    sortFields,
  };
}

function filterChanges(key: string, before: ListSide, after: ListSide, findings: RuleFindings): void {
  const at = (side: ListSide, ...rest: string[]) => side.filterPointer && `${side.filterPointer}${toPointer(['properties', ...rest])}`;
  const push = (change: Omit<Change, 'id' | 'direction' | 'operation'>, ...supersede: Array<string | undefined>) => {
    findings.changes.push(makeChange({ ...change, direction: 'request', operation: key }));
    for (const prefix of supersede) if (prefix) findings.supersedes.push(prefix);
  };
  for (const [name, field] of before.fields) {
    const next = after.fields.get(name);
    if (!next) {
      push({ rule: 'care.filter.field.removed', classification: 'breaking', basePointer: at(before, name), message: `filter field \`${name}\` removed` }, at(before, name));
      continue;
    }
    if (field.type !== next.type) {
      push({
        rule: 'care.filter.value-type.changed', classification: 'breaking',
        basePointer: at(before, name), headPointer: at(after, name),
        message: `filter field \`${name}\` value type ${String(field.type)} → ${String(next.type)}: values or comparisons that were valid change meaning or are refused`,
      }, `${at(before, name)}/x-care-value-type`, `${at(after, name)}/x-care-value-type`);
    }
    for (const operator of field.operators) {
      if (next.operators.includes(operator)) continue;
      push({ rule: 'care.filter.operator.removed', classification: 'breaking', basePointer: at(before, name, 'properties', operator), message: `operator \`${operator}\` removed from filter field \`${name}\`` }, at(before, name, 'properties', operator));
    }
    for (const operator of next.operators) {
      if (field.operators.includes(operator)) continue;
      push({ rule: 'care.filter.operator.added', classification: 'non-breaking', headPointer: at(after, name, 'properties', operator), message: `operator \`${operator}\` added to filter field \`${name}\`` }, at(after, name, 'properties', operator));
    }
  }
  // Each field's `propertyNames` repeats the FilterOperator enum: the grammar's operators are judged once
  // (operatorChanges), the field's own operators above.
  for (const name of before.fields.keys()) findings.supersedes.push(`${at(before, name)}/propertyNames`);
  for (const name of after.fields.keys()) findings.supersedes.push(`${at(after, name)}/propertyNames`);
  for (const name of after.fields.keys()) {
    if (before.fields.has(name)) continue;
    push({ rule: 'care.filter.field.added', classification: 'non-breaking', headPointer: at(after, name), message: `filter field \`${name}\` added` }, at(after, name));
  }
}

function sortChanges(key: string, before: ListSide, after: ListSide, findings: RuleFindings): void {
  for (const name of before.sortFields) {
    if (after.sortFields.has(name)) continue;
    findings.changes.push(makeChange({ rule: 'care.sort.field.removed', classification: 'breaking', direction: 'request', operation: key, ...(before.sortPointer ? { basePointer: before.sortPointer } : {}), message: `sortable field \`${name}\` removed` }));
  }
  for (const name of after.sortFields) {
    if (before.sortFields.has(name)) continue;
    findings.changes.push(makeChange({ rule: 'care.sort.field.added', classification: 'non-breaking', direction: 'request', operation: key, ...(after.sortPointer ? { headPointer: after.sortPointer } : {}), message: `sortable field \`${name}\` added` }));
  }
  for (const pointer of [before.sortPointer, after.sortPointer]) if (pointer) findings.supersedes.push(pointer);
}

function safeOperators(document: any) {
  try {
    return readOperators(document);
  } catch {
    return {};
  }
}

function operatorChanges(base: any, head: any, findings: RuleFindings): void {
  const before = safeOperators(base);
  const after = safeOperators(head);
  const at = (name: string, ...rest: string[]) => toPointer(['components', 'schemas', 'FilterOperator', 'x-care-operators', name, ...rest]);
  const push = (change: Omit<Change, 'id' | 'direction'>) => findings.changes.push(makeChange({ ...change, direction: 'document' }));
  for (const [name, operator] of Object.entries(before)) {
    const next = after[name];
    if (!next) {
      push({ rule: 'care.operator.removed', classification: 'breaking', basePointer: at(name), message: `filter operator \`${name}\` removed from the grammar` });
    } else if (next.arity !== operator.arity) {
      push({ rule: 'care.operator.arity.changed', classification: 'breaking', basePointer: at(name, 'arity'), headPointer: at(name, 'arity'), message: `filter operator \`${name}\` arity ${operator.arity} → ${next.arity}: queries written for the old arity are refused` });
    } else if (next.summary !== operator.summary || next.negationOf !== operator.negationOf) {
      push({ rule: 'care.operator.summary.changed', classification: 'documentation', basePointer: at(name), headPointer: at(name), message: `filter operator \`${name}\` description changed` });
    }
  }
  for (const name of Object.keys(after)) {
    if (!before[name]) push({ rule: 'care.operator.added', classification: 'non-breaking', headPointer: at(name), message: `filter operator \`${name}\` added to the grammar` });
  }
}

export function listRules(base: any, head: any): RuleFindings {
  const findings: RuleFindings = { changes: [], supersedes: [] };
  for (const [before, after] of common(sideOperations(base), sideOperations(head))) {
    if (before.kind !== 'path') continue;
    const listBefore = listSide(base, before);
    const listAfter = listSide(head, after);
    if (!listBefore || !listAfter) continue;
    filterChanges(before.key, listBefore, listAfter, findings);
    sortChanges(before.key, listBefore, listAfter, findings);
  }
  operatorChanges(base, head, findings);
  return findings;
}
