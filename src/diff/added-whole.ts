// When an operation gains a parameter list or a request body it did not have at all, api-smart-diff reports one
// addition of the whole list or body and calls it non-breaking, whatever it requires. Judged inside instead: each
// parameter of the new list that the base did not have is one change, breaking when it is required (a client that
// never sent it is refused); a new request body is breaking when it is required.
import { deref } from '../spec/refs.ts';
import { parametersOf, sideOperations } from './operations.ts';
import { makeChange, resolveThroughRefs } from './pointer.ts';
import type { Change } from './types.ts';

type Segment = string | number;

/** `[paths, <path>, <method>, 'parameters']` or `[..., 'requestBody']`: what was added whole, if so. */
function addedWhole(segments: Segment[]): 'parameters' | 'requestBody' | undefined {
  if (segments[0] !== 'paths' || segments.length !== 4) return undefined;
  const last = String(segments[3]);
  return last === 'parameters' || last === 'requestBody' ? last : undefined;
}

/** The changes that replace the library's one finding, or undefined when the finding stands as it is. */
export function judgeAddedWhole(base: any, head: any, segments: Segment[], operation: string | undefined, pointer: string): Change[] | undefined {
  const what = addedWhole(segments);
  if (!what || !operation) return undefined;
  if (what === 'requestBody') {
    const body = deref(head, resolveThroughRefs(head, pointer));
    const required = body?.required === true;
    return [makeChange({
      rule: 'request.body.added',
      classification: required ? 'breaking' : 'non-breaking',
      direction: 'request',
      operation,
      headPointer: pointer,
      message: required ? `${operation} now requires a request body` : `${operation} now accepts an optional request body`,
    })];
  }
  const after = sideOperations(head).get(operation);
  if (!after) return undefined;
  const before = sideOperations(base).get(operation);
  const key = (parameter: any) => `${parameter?.in}:${String(parameter?.name).toLowerCase()}`;
  const had = new Set(before ? parametersOf(base, before).map(({ parameter }) => key(parameter)) : []);
  return parametersOf(head, after)
    .filter(({ parameter }) => !had.has(key(parameter)))
    .map(({ parameter, pointer: at }) => {
      const required = parameter?.required === true;
      return makeChange({
        rule: 'request.parameter.added',
        classification: required ? 'breaking' : 'non-breaking',
        direction: 'request',
        operation,
        headPointer: at,
        message: `${required ? 'required' : 'optional'} ${parameter?.in} parameter \`${parameter?.name}\` added to ${operation}`,
      });
    });
}
