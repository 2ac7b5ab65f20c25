// A page of records as JSON, written by the column engine (as UTF-8 bytes) or by SQLite (as text) (D-84): a list of
// cases is sent without building one object per record and encoding it again. The records are parsed only if some code
// asks for them as objects.
import { utf8 } from '../utf8.ts';

/** A page's records, `[...]`, as JSON text and as its UTF-8 bytes, each made from the other once asked for. */
export class JsonText {
  private encoded?: Buffer;
  private decoded?: string;
  constructor(
    content: string | Buffer,
    readonly count: number,
  ) {
    if (typeof content === 'string') this.decoded = content;
    else this.encoded = content;
  }

  get text(): string {
    return (this.decoded ??= this.encoded!.toString('utf8'));
  }

  bytes(): Buffer {
    return (this.encoded ??= utf8(this.decoded!));
  }
}

/**
 * A list answer whose items are `json`; `items` parses it on first use. Its type is types.ts's ListResult, written out
 * here because types.ts imports JsonText from this module.
 */
export function jsonListResult(json: JsonText, totalCount: number): { readonly items: Record<string, any>[]; totalCount: number; json: JsonText } {
  let items: Record<string, any>[] | undefined;
  return {
    get items() {
      return (items ??= JSON.parse(json.text) as Record<string, any>[]);
    },
    totalCount,
    json,
  };
}
