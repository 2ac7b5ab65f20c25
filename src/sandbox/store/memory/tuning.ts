// The tuned constants of the case-list engine (decision D-84), in one place. Each says what it trades and the figure
// of `npm run bench:sandbox` (a query class of GET /cases, bench/sandbox-classes.ts, or the cold start and the mix with
// writes) or `npm run bench:sandbox-memory` that moves when it changes: change one, run that bench at 10k and 100k
// against the commit before, and keep it only if that figure improves and no class gets slower (issue 39). None of them
// changes an answer: the differential tests (test/sandbox.memory.test.ts and the other sandbox.* engine tests) hold for
// any value. The words (slot, stretch, block, walk, pass, ...) are defined in README.md next to this file.

// ---- filling and keeping current (engine.ts) ----

/** Tables up to this many cases are filled before the storage is returned; larger ones in the background (SQL answers
 * meanwhile). Trades the time `openSqliteStorage` blocks against lists answered by SQL. Bench: cold start. */
export const SYNC_LOAD_MAX = 20_000;
/** Rows read per step of a background fill. Trades the longest pause a request meets during a fill against the
 * number of steps. Bench: cold start, the mix's p99 during a fill. */
export const LOAD_CHUNK = 500;
/** Milliseconds of filling per turn of the event loop. Trades request latency during a fill against fill time.
 * Bench: cold start. */
export const SLICE_MS = 12;
/** Writes applied at once beyond this (and beyond 5 % of the cases) fill the engine again instead of each applied.
 * Trades a refill against per-row updates of every permutation and count. Bench: the mix with writes. */
export const REFILL_AT = 2000;
/** Account scopes whose slot masks and counts are kept current (the most recently used). Trades memory and the cost
 * of every write (each kept scope's counts are updated) against rebuilding a scope's mask. Bench: the mix with writes
 * (customer and partner accounts), bench:sandbox-memory. */
export const SCOPE_MASKS = 32;

// ---- blocks: counts and bounds per block of a permutation (stretch-counts.ts, code-block-counts.ts, zone-bounds.ts) ----

/** Positions per block. Smaller blocks make a count's two end scans shorter but every write costlier (a moved slot
 * crosses each later block boundary, per kept scope). Bench: filter[createdAt][gt] (a long stretch counted), the mix
 * with writes. */
export const BLOCK = 4096;
/** A page whose plain walk is expected to test fewer slots than this many blocks' walks them, rather than having
 * counts per block made for it (a pass over the permutation). Bench: sort=-createdAt, filter[status][eq] at deep pages. */
export const ZONED_WALK_BLOCKS = 4;
/** Columns of at most this many codes are counted per code and block along a permutation when a list walks it.
 * Trades memory (codes x blocks per scope) against walking past the blocks before a deep page. Bench:
 * filter[contract][eq], filter[contact][eq] with a deep page. */
export const CODE_BLOCK_CODES = 64;
/** Codes beyond this stop a column's counts per block (it is no longer few-valued). Bench: bench:sandbox-memory. */
export const CODE_BLOCK_MAX_CODES = 1024;
/** Integers 0..INTEGER_KEYS-1 are keys of their own in counts per block (a status, a priority); other values are
 * counted together. Trades memory per block against which integer columns are counted. Bench: sort=status,<field>. */
export const INTEGER_KEYS = 64;
/** Lists of a scope and sort field before its counts per block (per integer, or of the scope) are made: making them is
 * a pass over the permutation, worth it for a sort that recurs. Bench: sort=status,<field>, sort=-contract. */
export const BUCKET_COUNTS_AFTER = 4;
/** A zoned walk skips blocks when a plain walk would pass this many times more slots than the zoned one tests (a
 * slot tested with a call costs about this many slots of walkMask's loop). Bench: filter[incident][gt] sorted by
 * createdAt. */
export const SKIP_WALK_COST = 3;

// ---- choosing how a clause and a page are answered (engine.ts, filter.ts, stretch-answer.ts, same-counts.ts, page.ts) ----

/** A clause counted from block counts has its page walked testing each slot when the walk is expected to visit at
 * most this share of the slots, and gives way to the passes after visiting that many: byValue when a slot is
 * compared with the stretch's end values, byComparator when with the permutation's comparator, zoned for a walk that
 * skips blocks (bounded, not estimated). A slot compared by value costs several times less than a place found by
 * the comparator, so a walk that gives way costs at most about a third of the passes it then makes. Bench:
 * filter[createdAt][lt], filter[shortDescription][ge], filter[incident][gt]. */
export const COUNTED_WALK_SHARE = { byValue: 1 / 32, byComparator: 1 / 128, zoned: 1 / 12 };
/** A page walked testing `sameas` per slot: at most this share of the slots (read: both columns read per slot; kept:
 * the pair's same-slots mask read). Beyond it a pass is cheaper. Bench: filter[priority][sameas]. */
export const SAME_WALK_SHARE = { read: 1 / 8, kept: 1 / 32 };
/** A clause answered by its stretches visits the shorter side (the stretches or the rest) only when that side holds
 * at most this share of the slots; beyond it a pass over the slots is faster (random order). Bench:
 * filter[createdAt][gt], filter[status][ne]. */
export const VISIT_SHARE = 1 / 4;
/** `in` with more values than this is judged by a pass, not by one stretch per value. Bench: filter[createdAt][in]. */
export const MAX_IN = 64;
/** A text test that holds for more distinct values than this is judged by a pass, not by each value's stretch (two
 * binary searches a value). Bench: filter[id][contains], filter[incident][endswith]. */
export const MAX_TEXT_VALUES = 256;
/** A string range or prefix is read from the field's permutation when its dictionary holds more than one value per
 * this many slots; fewer values are judged one by one (a comparison each) and every slot reads its code's answer.
 * Bench: filter[description][startswith], filter[contract][lt]. */
export const RANGE_SLOTS_PER_VALUE = 64;
/** `sameas` between two string columns maps one column's codes to the other's (a lookup per distinct value) when it
 * has at most one value per this many slots; else it compares texts per slot. Bench: filter[description][sameas]. */
export const SAMEAS_LOOKUP_SLOTS = 64;
/** A comparison costs about this many slots walked: the page sorts its matches rather than walking a permutation
 * when n log n comparisons cost less. Bench: filter[contact][eq] sorted by shortDescription. */
export const COMPARE_COST = 4;
/** Leading-key combinations of a multi-key sort beyond this are walked as runs of the first key rather than bucketed.
 * Bench: sort=status,<field>, sort=contract,<field>. */
export const MAX_BUCKETS = 256;
/** A leading sort key whose matched values are null or integers below this is bucketed by value (an array per
 * value). Bench: sort=status,<field>, sort=priority,<field>. */
export const BUCKET_INTEGERS = 1024;
/** Parts of a sorted range this short are sorted whole, wherever they lie (sort-range.ts). Bench: any class whose
 * page is sorted, e.g. filter[description][contains]. */
export const SORT_RANGE_SMALL = 16;

// ---- counts per scope (scope-counts.ts) ----

/** Largest dictionary whose codes a kept scope counts (4 bytes per code, column and scope). Trades memory against
 * one-clause lists counted from the counts. Bench: bench:sandbox-memory, filter[contact][eq]. */
export const COUNTED_CODES = 65_536;
/** A many-valued dictionary holding at most one value per this many slots is counted per value too, from the first
 * text test on it: the total is then a sum over the values. Larger values gain on few-valued text columns and lose
 * on near-unique ones. Bench: filter[description][contains] against filter[shortDescription][contains],
 * filter[incident][contains]. */
export const MANY_CODES_SLOTS = 8;
/** Integers 0..COUNTED_INTEGERS-1 are counted each per scope; another value stops the one-clause answer. Bench:
 * filter[status][eq], filter[priority][in]. */
export const COUNTED_INTEGERS = 1024;

// ---- building permutations in the background (sort-slots.ts) ----

/** Slots per run sorted natively before the merges: one run is one step between requests. Trades the longest step
 * against the number of merges. Bench: cold start, the mix's p99 during a fill. */
export const SORT_RUN = 1024;
/** Merged slots between yields. Bench: cold start. */
export const SORT_YIELD_EVERY = 8192;

// ---- text search (text-index.ts, suffix-order.ts, word-index.ts) ----

/** New values are joined into a text chunk once this many have arrived (until then tested one by one). Bench: the
 * mix with writes, filter[description][contains] after writes. */
export const TEXT_TAIL_MAX = 2048;
/** Beyond this many chunks, the small ones (written after the fill) are merged into one. Bench: the mix with writes. */
export const TEXT_MAX_CHUNKS = 24;
/** Values joined per chunk by the fill (a step between requests). Bench: cold start. */
export const TEXT_FILL_CHUNK = 65_536;
/** Characters per gram of a chunk's gram filters: needles shorter than this search every block. Bench:
 * filter[id][contains], filter[description][contains]. */
export const GRAM = 4;
/** Characters of a chunk's text per gram filter (a filter of 2 bits per character). Trades memory and fill time
 * against the share of blocks a search skips. Bench: filter[id][contains], bench:sandbox-memory. */
export const GRAM_BLOCK = 4096;
/** Characters whose grams the fill sets per step between requests. Bench: cold start. */
export const GRAMS_PER_STEP = 1 << 18;
/** New values tested one by one by `endswith` up to this many, then merged into the backwards order. Bench:
 * filter[incident][endswith] after writes. */
export const SUFFIX_TAIL_MAX = 2048;
/** Values a word index takes in per step of its fill. Bench: cold start. */
export const WORD_FILL_STEP = 65_536;
/** Past this many values, a word index whose words hold more than half the characters of the values is dropped
 * (searching the words would cost about as much as searching the values). Bench: filter[id][contains]. */
export const WORD_JUDGED_AFTER = 4096;

// ---- the code index (code-index.ts) ----

/** A key placed this far from its hash's place means keys chosen to collide (clients write the values): the index
 * then moves into a Map, whose hash V8 seeds per process. Trades nothing on honest data (runs stay far shorter);
 * guards against a crafted flood. Bench: none (test/sandbox.code-index.test.ts). */
export const LONGEST_PROBE = 256;
