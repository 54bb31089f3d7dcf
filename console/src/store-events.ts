// One store-wide event stream per tab (a browser allows six connections to an origin over
// HTTP/1.1): every page that wants to hear of sessions started, parked or ended, and of the
// queue, listens here. EventSource reconnects by itself after a server restart.
import { storeEventsUrl } from "./api-routes.js";

type Listener = (event: MessageEvent<string>) => void;

const listeners = new Set<Listener>();
let source: EventSource | undefined;

function opened(): EventSource {
  if (source === undefined) {
    source = new EventSource(storeEventsUrl(), { withCredentials: true });
    const tell = (event: MessageEvent<string>) => {
      for (const listener of listeners) listener(event);
    };
    // GET /v1/events names each change: the queue as it stands, a run queued or parked, a run gone from the queue.
    for (const kind of ["snapshot", "queued", "parked", "left"]) source.addEventListener(kind, tell);
  }
  return source;
}

/** Calls `listener` on every store-wide event until the returned function is called. */
export function onStoreChange(listener: Listener): () => void {
  opened();
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function closeStoreEvents(): void {
  source?.close();
  source = undefined;
}
