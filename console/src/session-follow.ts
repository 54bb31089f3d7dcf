// Following a session: the entries of its records as they are journaled, each record once.
// The stream's event ids are record sequence numbers, so EventSource's own reconnection
// (with Last-Event-ID) resumes after the last record shown, across server restarts; a record
// that arrives again anyway is dropped by its seq.
import { sessionEventsUrl } from "./api-routes.js";
import type { TranscriptEntry } from "./transcript.js";

export interface FollowHandlers {
  /** A journaled record's entries, in seq order. */
  record(seq: number, entries: TranscriptEntry[]): void;
  /** Text the model is streaming, not journaled yet (replaced by the record that holds it). */
  delta(text: string): void;
  /** The session's status changed (running, parked, ended). */
  status(status: string): void;
}

export function followSession(id: string, afterSeq: number, handlers: FollowHandlers): () => void {
  let lastSeq = afterSeq;
  const source = new EventSource(sessionEventsUrl(id, afterSeq), { withCredentials: true });
  source.addEventListener("record", (event) => {
    const seq = Number((event as MessageEvent<string>).lastEventId);
    if (!Number.isSafeInteger(seq) || seq <= lastSeq) return;
    lastSeq = seq;
    const data = JSON.parse((event as MessageEvent<string>).data) as { entries: TranscriptEntry[] };
    handlers.record(seq, data.entries);
  });
  source.addEventListener("delta", (event) => {
    handlers.delta((JSON.parse((event as MessageEvent<string>).data) as { text: string }).text);
  });
  source.addEventListener("status", (event) => {
    handlers.status((JSON.parse((event as MessageEvent<string>).data) as { status: string }).status);
  });
  return () => source.close();
}
