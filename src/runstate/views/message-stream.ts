// A run's conversation as its records complete it, one message at a time, for readers
// that write it out as they read (`session show --json`) instead of folding it whole:
// what is held is the last message, which a later record may still join, and one batch.
// The messages and their joins are fold's (fold.ts): a test holds the two to each other.
import { kindOfProtocol, type AssistantMessage, type JournalRecord, type Message, type ToolResultBlock } from "../records/records.js";

/** One message of a run's history, and the seq of the record that completed it. */
export interface CompletedMessage {
  message: Message;
  seq: number;
}

/** Turns records, in seq order, into the messages of fold's `history`, each given once no later record can change it. */
export class HistoryStream {
  #held: CompletedMessage | undefined;
  #pending: { message: AssistantMessage; seq: number; calls: number; results: ToolResultBlock[] } | undefined;

  /** The messages that `record` completes, in order. */
  push(record: JournalRecord): CompletedMessage[] {
    const done: CompletedMessage[] = [];
    switch (kindOfProtocol(record.protocol)) {
      case "meta": {
        const { prompt } = (record as Extract<JournalRecord, { meta: unknown }>).meta;
        if (prompt !== "") this.#held = { message: { role: "user", content: [{ type: "text", text: prompt }] }, seq: record.seq };
        break;
      }
      case "assistant": {
        const turn = (record as Extract<JournalRecord, { assistant: unknown }>).assistant;
        const last = this.#held?.message;
        // A paused turn's continuation joins it, as fold joins them.
        const message: AssistantMessage =
          last?.role === "assistant" ? { role: "assistant", content: [...last.content, ...turn.message.content] } : turn.message;
        if (last?.role === "assistant") this.#held = undefined;
        const calls = turn.message.content.filter((block) => block.type === "tool_use").length;
        if (calls > 0) this.#pending = { message, seq: record.seq, calls, results: [] };
        else this.#hold({ message, seq: record.seq }, done);
        break;
      }
      case "tool_result": {
        const pending = this.#pending;
        if (pending === undefined) break;
        pending.results.push((record as Extract<JournalRecord, { tool_result: unknown }>).tool_result.result);
        if (pending.results.length < pending.calls) break;
        this.#pending = undefined;
        this.#hold({ message: pending.message, seq: pending.seq }, done);
        this.#hold({ message: { role: "user", content: pending.results }, seq: record.seq }, done);
        break;
      }
      case "user": {
        const followUp = (record as Extract<JournalRecord, { user: unknown }>).user.message;
        const last = this.#held?.message;
        if (last?.role === "user") this.#held = { message: { role: "user", content: [...last.content, ...followUp.content] }, seq: record.seq };
        else this.#hold({ message: followUp, seq: record.seq }, done);
        break;
      }
      default:
        break;
    }
    return done;
  }

  /** The last message, once no record follows. */
  end(): CompletedMessage[] {
    const last = this.#held;
    this.#held = undefined;
    return last === undefined ? [] : [last];
  }

  #hold(next: CompletedMessage, done: CompletedMessage[]): void {
    if (this.#held !== undefined) done.push(this.#held);
    this.#held = next;
  }
}
