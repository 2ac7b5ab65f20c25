// The bundle step's own completion of what Redocly bundles: lists the source declares once (as a schema's property
// names) written out where a tool needs them as an `enum`. The build and the diff's tree bundling both call this, so
// a tree compares equal to its bundle.
import { fillFieldEnums } from './field-enums.ts';
import { fillFieldOperandEnums } from './field-operands.ts';

/** Completes a bundled document in place: field-name enums (D-20) and per-list field-operand enums (D-105). */
export function completeBundle(document: any): void {
  fillFieldEnums(document);
  fillFieldOperandEnums(document);
}
