// One process-wide pool of CSPRNG bytes for the small random values every request needs (token
// caps, session ids, GCM nonces). A randomBytes call costs about as much as drawing a few
// hundred bytes, so the pool refills 8 KiB at a time; each byte is handed out once and the
// drawn range is zeroed in the pool, so nothing is reused or left readable there.
import { randomBytes } from 'node:crypto';

const POOL_BYTES = 8192;
let pool = Buffer.alloc(0);
let offset = 0;

function reserve(size: number): number {
  if (size > POOL_BYTES) throw new RangeError('random pool: request larger than the pool');
  if (offset + size > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const start = offset;
  offset += size;
  return start;
}

/** `size` fresh random bytes (a copy; the pool range is zeroed). */
export function randomBuffer(size: number): Buffer {
  const start = reserve(size);
  const out = Buffer.from(pool.subarray(start, start + size));
  pool.fill(0, start, start + size);
  return out;
}

/** `size` fresh random bytes as lowercase hex. */
export function randomHex(size: number): string {
  const start = reserve(size);
  const out = pool.toString('hex', start, start + size);
  pool.fill(0, start, start + size);
  return out;
}
