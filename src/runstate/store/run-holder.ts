// Who holds a run open for writing: named by the store's listing and by an ERR_LOCKED
// error alike, so it sits below both.
import { hostname } from "node:os";

/**
 * The process holding a run open for writing, as it described itself to the backend:
 * the lock file's note for files, the lease for JetStream.
 */
export interface RunHolder {
  /** Its process id, on `host`. */
  pid: number;
  /** The host name it runs on. */
  host: string;
  /** When that process started, RFC 3339. */
  started: string;
}

/** When this process started, worked out once: the same in every holder it writes. */
const STARTED = new Date(Date.now() - process.uptime() * 1000).toISOString();

/** This process, as every backend names it when it takes a run. */
export function thisProcess(): RunHolder {
  return { pid: process.pid, host: hostname(), started: STARTED };
}
