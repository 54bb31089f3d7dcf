// How long a model call or a tool took, as the transcript shows it beside the call.

/** `started_at` to `ended_at` in milliseconds; undefined where the record kept no times (older journals, a call no tool ran). */
export function durationOf(times: { started_at?: string; ended_at?: string }): number | undefined {
  if (times.started_at === undefined || times.ended_at === undefined) return undefined;
  return Math.max(0, Date.parse(times.ended_at) - Date.parse(times.started_at));
}

/** 340 ms, 2.4 s, 3m 05s. */
export function durationText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`;
}
