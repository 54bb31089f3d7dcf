// A run's conversation as its records complete it, one message at a time, for readers
// that write it out as they read (`session show --json`) instead of folding it whole:
// what is held is the last message, which a later record may still join, and one batch.
// The messages and their joins are fold's (fold.ts): a test holds the two to each other.
import { resultText, summaryText, trimmedResultText } from "./fold.js";
import { isOtherBlock, kindOfProtocol, type AssistantMessage, type JournalRecord, type Message, type ToolResultBlock } from "./records.js";
import type { TalliedCompaction } from "./run-tally.js";

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
        const message: AssistantMessage = last?.role === "assistant" ? { role: "assistant", content: [...last.content, ...turn.message.content] } : turn.message;
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

/**
 * What fold's `messages` makes of the history under the compactions in effect at the
 * end of the run (as a tally of the whole run gives them): the latest summary, then the
 * messages after its cut, with the trimmed results cut. Given the history in order.
 */
export class ModelView {
  readonly #summary: string | undefined;
  readonly #cut: number;
  readonly #trims: Map<string, number>;
  #started = false;

  constructor(compactions: readonly TalliedCompaction[]) {
    const inEffect = compactions.filter((entry) => entry.undoneAt === undefined);
    const summarized = inEffect.findLast((entry) => entry.compaction.summary !== "");
    this.#summary = summarized?.compaction.summary;
    this.#cut = summarized?.compaction.through_seq ?? 0;
    this.#trims = new Map(inEffect.flatMap((entry) => (entry.compaction.trimmed ?? []).map((trim) => [trim.tool_use_id, trim.kept_chars] as const)));
  }

  /** The messages the model is sent for one message of the history: none for one a summary stands for. */
  take({ message, seq }: CompletedMessage): Message[] {
    if (seq <= this.#cut) return [];
    const kept = this.#trimmed(message);
    if (this.#started || this.#summary === undefined) {
      this.#started = true;
      return [kept];
    }
    this.#started = true;
    const text = { type: "text" as const, text: summaryText(this.#summary) };
    // The summary reaches the model as the user's first words; a kept follow-up joins it.
    return kept.role === "user" ? [{ role: "user", content: [text, ...kept.content] }] : [{ role: "user", content: [text] }, kept];
  }

  #trimmed(message: Message): Message {
    if (message.role === "assistant" || this.#trims.size === 0) return message;
    const content = message.content.map((block) => {
      if (isOtherBlock(block) || block.type !== "tool_result") return block;
      const kept = this.#trims.get(block.tool_use_id);
      return kept === undefined ? block : { ...block, content: trimmedResultText(resultText(block.content), kept) };
    });
    return content.every((block, index) => block === message.content[index]) ? message : { role: "user", content };
  }
}
