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

/**
 * Zero a drawn range of the pool. Draws are a few bytes (a 6-byte cap, a 16-byte session id):
 * a loop is cheaper for them than a fill() call; a longer range goes to fill().
 */
function wipe(start: number, end: number): void {
  if (end - start > 64) {
    pool.fill(0, start, end);
    return;
  }
  for (let index = start; index < end; index += 1) pool[index] = 0;
}

/** `size` fresh random bytes (a copy; the pool range is zeroed). */
export function randomBuffer(size: number): Buffer {
  const start = reserve(size);
  const out = Buffer.from(pool.subarray(start, start + size));
  wipe(start, start + size);
  return out;
}

/** `size` fresh random bytes as lowercase hex. */
export function randomHex(size: number): string {
  const start = reserve(size);
  const out = pool.toString('hex', start, start + size);
  wipe(start, start + size);
  return out;
}
