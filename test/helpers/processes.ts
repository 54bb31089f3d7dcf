// Whether a process tests started (or expect gone) is still running.
import { readFileSync } from "node:fs";

/** Alive and not a zombie: an orphan here may wait a while for someone to reap it. */
export function isRunning(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}
