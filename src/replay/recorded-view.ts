// What the new model is sent is what the recording's model was, built from the replayed
// conversation. A replay makes no compaction of its own: at a turn where the recording's model
// was sent a compacted conversation, the replayed conversation is put under the recording's
// compactions, as the fold would build it (ModelView). The replayed calls carry the new
// model's ids, so they are given the recorded ids of the calls they matched while the view is
// built (a trim names the recorded call), and their own back after. And a batch's results go
// in the order the recording journaled them (its tools' finishing order), where the replay's
// answers, all at once, would go in the model's.
import { ModelView } from "../runstate/views/model-view.js";
import { isOtherBlock, type Message } from "../runstate/records/records.js";
import type { RecordedView } from "./recording.js";

/** Call ids both ways: the new model's to the recording's, and back. */
export class CallIds {
  readonly #recorded = new Map<string, string>();
  readonly #replayed = new Map<string, string>();
  /** The seq of each matched call's recorded result, by the new model's id. */
  readonly #resultSeqs = new Map<string, number>();
  /** Each message as it is sent in recorded order, worked out once. */
  readonly #ordered = new WeakMap<Message, Message>();
  /** Whether any batch was answered in the recording in another order than its calls are made in: until one is, nothing is reordered. */
  #reordering = false;
  #turnSeq = 0;

  /** The calls paired next are the next turn's. */
  nextTurn(): void {
    this.#turnSeq = 0;
  }

  /** Pairs a call of the new model with the recorded call it matched; calls of a turn are paired in the new model's order. */
  pair(replayed: string, recorded: string, resultSeq: number): void {
    this.#recorded.set(replayed, recorded);
    this.#replayed.set(recorded, replayed);
    this.#resultSeqs.set(replayed, resultSeq);
    if (resultSeq < this.#turnSeq) this.#reordering = true;
    this.#turnSeq = resultSeq;
  }

  /** Each message's tool results in the order the recording journaled them; those not recorded after, as they were. */
  inRecordedOrder(messages: readonly Message[]): readonly Message[] {
    if (!this.#reordering) return messages;
    return messages.map((message) => {
      let ordered = this.#ordered.get(message);
      if (ordered === undefined) this.#ordered.set(message, (ordered = this.#reordered(message)));
      return ordered;
    });
  }

  #reordered(message: Message): Message {
    const order = (block: Message["content"][number]): number =>
      !isOtherBlock(block) && block.type === "tool_result" ? (this.#resultSeqs.get(block.tool_use_id) ?? Number.MAX_SAFE_INTEGER) : -1;
    if (message.role === "assistant" || message.content.filter((block) => order(block) >= 0).length < 2) return message;
    return { role: "user", content: [...message.content].sort((a, b) => order(a) - order(b)) };
  }

  toRecorded(messages: readonly Message[]): Message[] {
    return messages.map((message) => renamed(message, this.#recorded));
  }

  toReplayed(messages: readonly Message[]): Message[] {
    return messages.map((message) => renamed(message, this.#replayed));
  }
}

/**
 * What the new model is sent: `messages` (the replay's whole history) under the recorded
 * compactions; as they are when none was in effect, or when the two histories no longer
 * line up (a replay that kept going past a departure).
 */
export function recordedView(given: readonly Message[], view: RecordedView | undefined, ids: CallIds): readonly Message[] {
  const messages = ids.inRecordedOrder(given);
  if (view === undefined || messages.length !== view.historySeqs.length) return messages;
  const model = new ModelView(view.compactions);
  const shown = ids.toRecorded(messages).flatMap((message, index) => model.take(message, view.historySeqs[index] as number));
  return ids.toReplayed([...shown, ...model.end()]);
}

function renamed(message: Message, ids: ReadonlyMap<string, string>): Message {
  if (message.role === "assistant") {
    return {
      role: "assistant",
      content: message.content.map((block) => (!isOtherBlock(block) && block.type === "tool_use" ? { ...block, id: ids.get(block.id) ?? block.id } : block)),
    };
  }
  return {
    role: "user",
    content: message.content.map((block) =>
      !isOtherBlock(block) && block.type === "tool_result" ? { ...block, tool_use_id: ids.get(block.tool_use_id) ?? block.tool_use_id } : block,
    ),
  };
}
