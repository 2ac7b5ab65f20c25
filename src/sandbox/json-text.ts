// Records already written as JSON (D-84): the column engine writes a page's UTF-8 bytes, SQLite writes text. The
// storage hands them over in this form and the HTTP layer sends them as they are, without building one object per
// record and encoding it again. Shared by store/ and http/ like utf8.ts, owned by neither.
import { utf8 } from './utf8.ts';

/** A JSON array of `count` records, as text and as its UTF-8 bytes, each made from the other once asked for. */
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
