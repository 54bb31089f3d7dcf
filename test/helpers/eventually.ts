// The tests' one wait for what another process, a server or a timer does: a check polled
// until it holds. Where a seam offers an event or a gate (a store's file-system seam, a fake
// server's requests, a worker's printed line), wait on that instead; and nothing proves that
// something did not happen by waiting a while: hold it at a gate and look while it is held.

/**
 * Polls `check` every `intervalMs` until it holds; rejects naming `what` once `timeoutMs` has
 * passed without it, or at once with the error `check` throws (a check that may fail for a
 * while catches its own). A check that runs a command polls less often than one that reads a file.
 */
// The deadline only turns a hang into a failure naming what never came: generous, as a loaded
// 2-core machine takes many seconds to start a process, and a test passes as soon as its wait ends.
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  { timeoutMs = 60_000, intervalMs = 20 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
