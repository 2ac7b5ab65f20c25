// When each subscription is next due, earliest first (a binary min-heap): the dispatcher's schedule (D-65).
// Setting a key again replaces its time; replaced entries stay in the heap and are skipped when they surface, so
// every operation is O(log n) in the number of subscriptions, whatever the number of queued deliveries.

interface Entry {
  key: string;
  at: number;
}

export class DueQueue {
  private readonly heap: Entry[] = [];
  private readonly times = new Map<string, number>();

  /** Subscriptions with a time. */
  get size(): number {
    return this.times.size;
  }

  has(key: string): boolean {
    return this.times.has(key);
  }

  timeOf(key: string): number | undefined {
    return this.times.get(key);
  }

  set(key: string, at: number): void {
    if (this.times.get(key) === at) return;
    this.times.set(key, at);
    this.heap.push({ key, at });
    this.up(this.heap.length - 1);
  }

  delete(key: string): void {
    this.times.delete(key);
  }

  /** The earliest time, or undefined when empty. */
  peek(): number | undefined {
    this.dropStale();
    return this.heap[0]?.at;
  }

  /** Removes and answers the earliest key due at or before `now`. */
  popDue(now: number): string | undefined {
    this.dropStale();
    const top = this.heap[0];
    if (!top || top.at > now) return undefined;
    this.removeTop();
    this.times.delete(top.key);
    return top.key;
  }

  private dropStale(): void {
    while (this.heap.length > 0 && this.times.get(this.heap[0].key) !== this.heap[0].at) this.removeTop();
  }

  private removeTop(): void {
    const last = this.heap.pop()!;
    if (this.heap.length === 0) return;
    this.heap[0] = last;
    this.down(0);
  }

  private up(i: number): void {
    const { heap } = this;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent].at <= heap[i].at) break;
      [heap[parent], heap[i]] = [heap[i], heap[parent]];
      i = parent;
    }
  }

  private down(i: number): void {
    const { heap } = this;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < heap.length && heap[left].at < heap[least].at) least = left;
      if (right < heap.length && heap[right].at < heap[least].at) least = right;
      if (least === i) return;
      [heap[least], heap[i]] = [heap[i], heap[least]];
      i = least;
    }
  }
}
