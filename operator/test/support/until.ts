// Polling wait of the operator's in-process tests: resolves once `check` holds, throws after
// `timeoutMs` (bounded, so a missed condition fails the test instead of hanging it).
export async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
