// What the model is sent of a run's history under the compactions in effect: the latest
// summary, then the messages after its cut, with the trimmed results cut. One piece of
// code for fold (the whole history in memory) and for the readers that stream a run's
// messages as they read its records (`session show --json`).
import { isOtherBlock, type CompactionPayload, type Message, type TextBlock, type ToolResultBlock, type TrimmedResult } from "../records/records.js";

/** The text the model reads in place of the conversation a compaction summarized. */
export function summaryText(summary: string): string {
  return `[The conversation so far was compacted to save space. This summary, written from it, stands for it:]\n\n${summary}`;
}

/** What stands in for the part of a result a compaction cut: the model reads how much is gone. */
export function trimmedResultText(text: string, keptChars: number): string {
  return `${text.slice(0, keptChars)}\n[fisk-ai cut ${text.length - keptChars} of ${text.length} characters of this result to fit the model's context window]`;
}

/** A tool result's content as one text, images named: what a trim cuts and counts characters of. */
export function resultText(content: ToolResultBlock["content"]): string {
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : "[image]")).join("\n");
}

/** A trim applied to a result whose length it does not count: a journal that does not fold. */
export interface MiscountedTrim {
  trim: TrimmedResult;
  /** The result's length in characters. */
  length: number;
}

/**
 * The model's view of a history given in order, one message at a time: `take` each
 * message with the seq of the record that completed it, then `end`.
 */
export class ModelView {
  /** The seq the summary in effect stands for the records up to; 0 when none does. */
  readonly cut: number;
  /** Trims whose counts do not add up to their result's length, as met. */
  readonly miscounted: MiscountedTrim[] = [];
  readonly #summary: string | undefined;
  readonly #trims: Map<string, TrimmedResult>;
  readonly #applied = new Set<string>();
  readonly #lengths: WeakMap<ToolResultBlock, number> | undefined;
  #started = false;

  /**
   * The view under `compactions`, in journal order: the undone ones are left out.
   * `lengths` gives the length of a result kept without its text (a checking fold's outline).
   */
  constructor(compactions: readonly { compaction: CompactionPayload; undoneAt: number | undefined }[], lengths?: WeakMap<ToolResultBlock, number>) {
    this.#lengths = lengths;
    const inEffect = compactions.filter((entry) => entry.undoneAt === undefined);
    const summarized = inEffect.findLast((entry) => entry.compaction.summary !== "");
    this.#summary = summarized?.compaction.summary;
    this.cut = summarized?.compaction.through_seq ?? 0;
    this.#trims = new Map(inEffect.flatMap((entry) => (entry.compaction.trimmed ?? []).map((trim) => [trim.tool_use_id, trim] as const)));
  }

  /** The messages the model is sent for one message of the history: none for one a summary stands for. */
  take(message: Message, seq: number): Message[] {
    if (seq <= this.cut) return [];
    const kept = this.#trimmed(message);
    const summary = this.#opening();
    if (summary === undefined) return [kept];
    // The summary reaches the model as the user's first words; a kept follow-up joins it, so roles alternate.
    return kept.role === "user" ? [{ role: "user", content: [summary, ...kept.content] }] : [{ role: "user", content: [summary] }, kept];
  }

  /** The summary alone, when no message came after its cut. */
  end(): Message[] {
    const summary = this.#opening();
    return summary === undefined ? [] : [{ role: "user", content: [summary] }];
  }

  /** Whether the trim of this call's result met its result. */
  trimmed(toolUseId: string): boolean {
    return this.#applied.has(toolUseId);
  }

  /** The summary's text, the first time it is asked for. */
  #opening(): TextBlock | undefined {
    if (this.#started) return undefined;
    this.#started = true;
    return this.#summary === undefined ? undefined : { type: "text", text: summaryText(this.#summary) };
  }

  #trimmed(message: Message): Message {
    if (message.role === "assistant" || this.#trims.size === 0) return message;
    const content = message.content.map((block) => {
      if (isOtherBlock(block) || block.type !== "tool_result") return block;
      const trim = this.#trims.get(block.tool_use_id);
      if (trim === undefined) return block;
      const text = resultText(block.content);
      this.#applied.add(block.tool_use_id);
      const length = this.#lengths?.get(block) ?? text.length;
      if (trim.kept_chars + trim.cut_chars !== length) this.miscounted.push({ trim, length });
      return { ...block, content: trimmedResultText(text, trim.kept_chars) };
    });
    // Only a message with a trimmed result is a copy.
    return content.every((block, index) => block === message.content[index]) ? message : { role: "user", content };
  }
}
