// A page of records as JSON text, written by the column engine or by SQLite (D-84): a list of cases is sent without
// building one object per record and encoding it again. The records are parsed only if some code asks for them as objects.
import { utf8 } from '../http/utf8.ts';
import type { ListResult } from './types.ts';

/** JSON text of a page's records, `[...]`, and its UTF-8 bytes once asked for (reused while the page is cached). */
export class JsonText {
  private encoded?: Buffer;
  constructor(
    readonly text: string,
    readonly count: number,
  ) {}

  bytes(): Buffer {
    return (this.encoded ??= utf8(this.text));
  }
}

/** A list answer whose items are `json`; `items` parses it on first use. */
export function jsonListResult(json: JsonText, totalCount: number): ListResult {
  let items: Record<string, any>[] | undefined;
  return {
    get items() {
      return (items ??= JSON.parse(json.text) as Record<string, any>[]);
    },
    totalCount,
    json,
  };
}
