// Test-only worker for services/files.ts: misbehaves on purpose so the pool's bounds can be
// proved without a real malicious file. The task's bytes name the behaviour: "spin" never
// ends, "external" grows ArrayBuffers (outside the V8 heap limit, like PDF.js inflating a
// flate bomb) at a decoder-like pace, "heap" grows the V8 heap, anything else echoes back.
function busyWait(milliseconds) {
  const until = Date.now() + milliseconds;
  while (Date.now() < until) {
    // Simulates decoding work between allocations.
  }
}

export default function run(task) {
  const mode = Buffer.from(task.bytes).toString('utf8');
  if (mode === 'spin') for (;;) busyWait(1000);
  if (mode === 'external') {
    const held = [];
    for (;;) {
      held.push(new Uint8Array(4 * 1024 * 1024).fill(1));
      busyWait(20);
    }
  }
  if (mode === 'heap') {
    const held = [];
    for (;;) held.push(Array.from({ length: 100_000 }, (_, index) => ({ index, text: `item ${index}` })));
  }
  return { ok: true, value: { format: 'text', text: mode } };
}
