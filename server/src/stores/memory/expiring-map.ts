// A bounded Map whose entries carry an expiry (caller-supplied clock) and an owner (the tenant
// that wrote them), for the memory stores. Two kinds of bound:
//   - the whole map: at most `maxEntries` entries and `maxBytes` bytes (the store's global cap);
//   - each owner: at most `maxPerOwner` entries and `maxBytesPerOwner` bytes (its quota), so one
//     tenant filling its share never refuses another tenant's writes.
// A write that would break a bound first removes entries that have already expired (of that
// owner for its quota, of anyone for the global cap), and is refused only when the room is held
// by live entries; the refusal says which bound and when the earliest live entry in the way
// expires (a Retry-After hint).
//
// Expiry is found without scanning: each owner keeps its entries in a binary min-heap on expiry
// (every entry knows its heap position, so an update or delete is O(log n)), and the owners sit
// in a min-heap on their earliest expiry. Removing the globally earliest entry is therefore
// O(log n), and every write also removes up to PURGE_PER_WRITE expired entries, so garbage
// nobody reads again leaves steadily, a bounded slice per write.

/** Expired entries removed in passing by each write (beyond those a write needs room from). */
const PURGE_PER_WRITE = 16;

/** The owner of entries written without one. */
export const NO_OWNER = '';

interface Slot<V> {
  readonly key: string;
  value: V;
  expiresAtMs: number;
  bytes: number;
  readonly owner: Owner<V>;
  /** Position in owner.heap. */
  index: number;
}

interface Owner<V> {
  readonly name: string;
  readonly heap: Slot<V>[];
  bytes: number;
  /** Position in the owners heap. */
  index: number;
}

/** Why a write was refused, and when the earliest live entry in the way expires. */
export interface Refusal {
  /** `owner`: the writer's quota is used up; `total`: the map's global cap is. */
  readonly scope: 'owner' | 'total';
  /** Expiry of the earliest live entry whose removal would make room (undefined: never). */
  readonly retryAtMs: number | undefined;
}

export interface ExpiringMapOptions<V> {
  /** Entries in the whole map. */
  readonly maxEntries: number;
  /** Entries of one owner; default: no per-owner bound. */
  readonly maxPerOwner?: number;
  /** Size of a value for the byte bounds (e.g. a payload's length); default: 0. */
  readonly sizeOf?: (value: V) => number;
  /** Bytes of the whole map (sum of sizeOf); default: unbounded. */
  readonly maxBytes?: number;
  /** Bytes of one owner; default: unbounded. */
  readonly maxBytesPerOwner?: number;
}

export interface Entry<V> {
  readonly value: V;
  readonly expiresAtMs: number;
  readonly owner: string;
}

function positiveInteger(name: string, value: number): number {
  if (value !== Number.POSITIVE_INFINITY && (!Number.isInteger(value) || value < 1)) throw new RangeError(`${name} must be a positive integer`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Binary min-heap helpers over arrays whose items record their own position.

interface HeapOps<T> {
  readonly key: (item: T) => number;
  readonly indexOf: (item: T) => number;
  readonly place: (item: T, index: number) => void;
}

function siftUp<T>(heap: T[], start: number, ops: HeapOps<T>): void {
  let index = start;
  const item = heap[index]!;
  const key = ops.key(item);
  while (index > 0) {
    const parentIndex = (index - 1) >> 1;
    const parent = heap[parentIndex]!;
    if (ops.key(parent) <= key) break;
    heap[index] = parent;
    ops.place(parent, index);
    index = parentIndex;
  }
  heap[index] = item;
  ops.place(item, index);
}

function siftDown<T>(heap: T[], start: number, ops: HeapOps<T>): void {
  let index = start;
  const item = heap[index]!;
  const key = ops.key(item);
  for (;;) {
    const left = 2 * index + 1;
    if (left >= heap.length) break;
    const right = left + 1;
    const child = right < heap.length && ops.key(heap[right]!) < ops.key(heap[left]!) ? right : left;
    const childItem = heap[child]!;
    if (ops.key(childItem) >= key) break;
    heap[index] = childItem;
    ops.place(childItem, index);
    index = child;
  }
  heap[index] = item;
  ops.place(item, index);
}

function heapPush<T>(heap: T[], item: T, ops: HeapOps<T>): void {
  heap.push(item);
  siftUp(heap, heap.length - 1, ops);
}

function heapRemove<T>(heap: T[], index: number, ops: HeapOps<T>): void {
  const last = heap.pop()!;
  if (index === heap.length) return;
  heap[index] = last;
  ops.place(last, index);
  heapFix(heap, index, ops);
}

/** Restore the heap order after the key of the item at `index` changed (up or down). */
function heapFix<T>(heap: T[], index: number, ops: HeapOps<T>): void {
  const item = heap[index]!;
  siftUp(heap, index, ops);
  siftDown(heap, ops.indexOf(item), ops);
}

// ---------------------------------------------------------------------------------------------

export class ExpiringMap<V> {
  private readonly entries = new Map<string, Slot<V>>();
  private readonly owners = new Map<string, Owner<V>>();
  /** Owners with at least one entry, ordered by their earliest expiry. */
  private readonly ownerHeap: Owner<V>[] = [];
  private totalBytes = 0;
  readonly maxEntries: number;
  private readonly maxPerOwner: number;
  private readonly maxBytes: number;
  private readonly maxBytesPerOwner: number;
  private readonly sizeOf: (value: V) => number;

  private readonly slotOps: HeapOps<Slot<V>> = {
    key: (slot) => slot.expiresAtMs,
    indexOf: (slot) => slot.index,
    place: (slot, index) => {
      slot.index = index;
    },
  };
  private readonly ownerOps: HeapOps<Owner<V>> = {
    key: (owner) => owner.heap[0]?.expiresAtMs ?? Number.POSITIVE_INFINITY,
    indexOf: (owner) => owner.index,
    place: (owner, index) => {
      owner.index = index;
    },
  };

  constructor(options: ExpiringMapOptions<V>) {
    this.maxEntries = positiveInteger('maxEntries', options.maxEntries);
    this.maxPerOwner = positiveInteger('maxPerOwner', options.maxPerOwner ?? Number.POSITIVE_INFINITY);
    this.maxBytes = positiveInteger('maxBytes', options.maxBytes ?? Number.POSITIVE_INFINITY);
    this.maxBytesPerOwner = positiveInteger('maxBytesPerOwner', options.maxBytesPerOwner ?? Number.POSITIVE_INFINITY);
    this.sizeOf = options.sizeOf ?? (() => 0);
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  /** Entries held for `owner` (expired ones not yet removed included). */
  countOf(owner: string): number {
    return this.owners.get(owner)?.heap.length ?? 0;
  }

  /** The live value, or undefined (an expired one is removed on the way). */
  get(key: string, nowMs: number): V | undefined {
    const slot = this.entries.get(key);
    if (slot === undefined) return undefined;
    if (slot.expiresAtMs <= nowMs) {
      this.removeSlot(slot);
      return undefined;
    }
    return slot.value;
  }

  /** The entry whatever its expiry (an expired one not yet removed included). */
  peek(key: string): Entry<V> | undefined {
    const slot = this.entries.get(key);
    return slot === undefined ? undefined : { value: slot.value, expiresAtMs: slot.expiresAtMs, owner: slot.owner.name };
  }

  /**
   * Make room for `count` new entries of `bytes` bytes in all for `owner`, removing expired
   * entries that stand in the way; a Refusal when live entries hold the room. Nothing is
   * reserved: the caller writes right after, synchronously.
   */
  room(owner: string, count: number, bytes: number, nowMs: number): Refusal | undefined {
    this.purge(nowMs, PURGE_PER_WRITE);
    const mine = this.owners.get(owner);
    if (mine !== undefined) {
      while (mine.heap.length > 0 && (mine.heap.length + count > this.maxPerOwner || mine.bytes + bytes > this.maxBytesPerOwner)) {
        const earliest = mine.heap[0]!;
        if (earliest.expiresAtMs > nowMs) return { scope: 'owner', retryAtMs: finite(earliest.expiresAtMs) };
        this.removeSlot(earliest);
      }
    }
    if (count > this.maxPerOwner || bytes > this.maxBytesPerOwner) return { scope: 'owner', retryAtMs: undefined };
    while (this.entries.size > 0 && (this.entries.size + count > this.maxEntries || this.totalBytes + bytes > this.maxBytes)) {
      const earliest = this.ownerHeap[0]!.heap[0]!;
      if (earliest.expiresAtMs > nowMs) return { scope: 'total', retryAtMs: finite(earliest.expiresAtMs) };
      this.removeSlot(earliest);
    }
    if (count > this.maxEntries || bytes > this.maxBytes) return { scope: 'total', retryAtMs: undefined };
    return undefined;
  }

  /**
   * Store a value until `expiresAtMs` for `owner`. A new key needs room (see room()); replacing
   * a key of the same owner never fails on the entry count, so a full store still lets in-flight
   * work finish, but a larger value needs the extra bytes. Returns the Refusal when it did not fit.
   */
  set(key: string, value: V, expiresAtMs: number, nowMs: number, owner: string = NO_OWNER): Refusal | undefined {
    const bytes = this.sizeOf(value);
    const existing = this.entries.get(key);
    if (existing !== undefined && existing.owner.name === owner && existing.expiresAtMs > nowMs) {
      const growth = bytes - existing.bytes;
      if (growth > 0) {
        const refusal = this.room(owner, 0, growth, nowMs);
        if (refusal !== undefined) return refusal;
      } else {
        this.purge(nowMs, PURGE_PER_WRITE);
      }
      // room() may have removed expired entries, never this live one.
      existing.value = value;
      existing.bytes = bytes;
      existing.owner.bytes += growth;
      this.totalBytes += growth;
      this.updateExpiry(existing, expiresAtMs);
      return undefined;
    }
    // Expired, or written by another owner: the key starts again as a new entry.
    if (existing !== undefined) this.removeSlot(existing);
    const refusal = this.room(owner, 1, bytes, nowMs);
    if (refusal !== undefined) return refusal;
    let holder = this.owners.get(owner);
    if (holder === undefined) {
      holder = { name: owner, heap: [], bytes: 0, index: -1 };
      this.owners.set(owner, holder);
      heapPush(this.ownerHeap, holder, this.ownerOps);
    }
    const slot: Slot<V> = { key, value, expiresAtMs, bytes, owner: holder, index: -1 };
    this.entries.set(key, slot);
    holder.bytes += bytes;
    this.totalBytes += bytes;
    heapPush(holder.heap, slot, this.slotOps);
    heapFix(this.ownerHeap, holder.index, this.ownerOps);
    return undefined;
  }

  /** Move a live entry's expiry (later or earlier); false when the key is absent. */
  touch(key: string, expiresAtMs: number): boolean {
    const slot = this.entries.get(key);
    if (slot === undefined) return false;
    this.updateExpiry(slot, expiresAtMs);
    return true;
  }

  delete(key: string): boolean {
    const slot = this.entries.get(key);
    if (slot === undefined) return false;
    this.removeSlot(slot);
    return true;
  }

  clear(): void {
    this.entries.clear();
    this.owners.clear();
    this.ownerHeap.length = 0;
    this.totalBytes = 0;
  }

  /** Remove up to `limit` expired entries, earliest first. */
  purge(nowMs: number, limit: number): void {
    for (let removed = 0; removed < limit; removed += 1) {
      const earliest = this.ownerHeap[0]?.heap[0];
      if (earliest === undefined || earliest.expiresAtMs > nowMs) return;
      this.removeSlot(earliest);
    }
  }

  private updateExpiry(slot: Slot<V>, expiresAtMs: number): void {
    if (slot.expiresAtMs === expiresAtMs) return;
    slot.expiresAtMs = expiresAtMs;
    heapFix(slot.owner.heap, slot.index, this.slotOps);
    heapFix(this.ownerHeap, slot.owner.index, this.ownerOps);
  }

  private removeSlot(slot: Slot<V>): void {
    this.entries.delete(slot.key);
    const owner = slot.owner;
    owner.bytes -= slot.bytes;
    this.totalBytes -= slot.bytes;
    heapRemove(owner.heap, slot.index, this.slotOps);
    if (owner.heap.length === 0) {
      this.owners.delete(owner.name);
      heapRemove(this.ownerHeap, owner.index, this.ownerOps);
    } else {
      heapFix(this.ownerHeap, owner.index, this.ownerOps);
    }
  }
}

function finite(value: number): number | undefined {
  return Number.isFinite(value) ? value : undefined;
}
