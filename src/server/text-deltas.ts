// The model's text as it streams, from the workers of this process to the event streams of
// its server. Deltas are not journaled (the turn they make up is, once it ends), so they go
// from the worker that runs a session to its followers in memory, and a follower that
// reconnects gets the journaled turn instead of the deltas it missed.
import type { AgentEvents } from "../agent/events.js";
import type { QueuedRun } from "../queue/run-queue.js";

/** The text deltas of the runs this process's workers drive, by session. */
export class TextDeltas {
  readonly #listeners = new Map<string, Set<(text: string) => void>>();

  /** The events of a run a worker takes that publish its deltas here: give it as the Worker's `runEvents`. */
  readonly runEvents = (entry: QueuedRun): AgentEvents => ({ textDelta: (text) => this.publish(entry.runId, text) });

  /** Tells every listener of `runId` of `text`. */
  publish(runId: string, text: string): void {
    for (const listener of this.#listeners.get(runId) ?? []) listener(text);
  }

  /** Hears `runId`'s deltas until the function returned is called. */
  subscribe(runId: string, listener: (text: string) => void): () => void {
    const listeners = this.#listeners.get(runId) ?? new Set();
    listeners.add(listener);
    this.#listeners.set(runId, listeners);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.#listeners.delete(runId);
    };
  }
}
