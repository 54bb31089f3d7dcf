// Who holds a run open for writing: named by the store's listing and by an ERR_LOCKED
// error alike, so it sits below both.

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
