// Following a session: the entries of its records as they are journaled, each record once.
// The stream's event ids are record sequence numbers, so EventSource's own reconnection
// (with Last-Event-ID) resumes after the last record shown, across server restarts; a stream
// the browser gave up on (an error answer while the server restarted) is opened again from
// the last record shown; a record that arrives again anyway is dropped by its seq.
import { sessionEventsUrl } from "./api-routes.js";
import type { TranscriptEntry } from "./transcript.js";

export interface FollowHandlers {
  /** A journaled record's entries, in seq order. */
  record(seq: number, entries: TranscriptEntry[]): void;
  /** The session's status changed (running, parked, ended). */
  status(status: string): void;
}

const REOPEN_MS = 1000;
/** Longer than two of the server's pings (PING_MS in src/server/routes/events.ts): a stream this quiet is dead. */
const SILENT_MS = 35_000;

export function followSession(id: string, afterSeq: number, handlers: FollowHandlers): () => void {
  let lastSeq = afterSeq;
  let source: EventSource | undefined;
  let reopening: ReturnType<typeof setTimeout> | undefined;
  let silence: ReturnType<typeof setTimeout> | undefined;
  const open = () => {
    const opened = new EventSource(sessionEventsUrl(id, lastSeq), { withCredentials: true });
    source = opened;
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(() => {
        opened.close();
        open();
      }, SILENT_MS);
    };
    heard();
    opened.addEventListener("ping", heard);
    opened.addEventListener("open", heard);
    opened.addEventListener("record", (event) => {
      const seq = Number(event.lastEventId);
      heard();
      if (!Number.isSafeInteger(seq) || seq <= lastSeq) return;
      lastSeq = seq;
      handlers.record(seq, (JSON.parse(event.data) as { entries: TranscriptEntry[] }).entries);
    });
    opened.addEventListener("status", (event) => handlers.status((JSON.parse(event.data) as { status: string }).status));
    opened.addEventListener("error", () => {
      if (opened.readyState !== EventSource.CLOSED) return;
      clearTimeout(silence);
      reopening = setTimeout(open, REOPEN_MS);
    });
  };
  open();
  return () => {
    clearTimeout(reopening);
    clearTimeout(silence);
    source?.close();
  };
}
