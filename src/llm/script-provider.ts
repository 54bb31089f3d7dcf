// The script provider: a deterministic offline model that plays turns from a file, for
// demos, tests and reproducible benchmarks. It keeps no state of its own: the turn to
// play is the number of assistant turns the conversation has had, read from the request
// (a summary it wrote says how many turns it replaced), so a resumed run in a fresh
// process, or one compacted, continues the script where the journal left it.
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import * as z from "zod";
import { isOtherBlock, type AssistantMessage, type Message, type ToolUseBlock } from "../runstate/records/records.js";
import { ModelCallError, SUMMARY_REQUEST, type ModelProvider, type ModelRequest, type ModelTurn } from "./model-provider.js";

const ScriptedReply = z.strictObject({
  /** Chosen when the latest tool result contains this text. */
  when: z.string().min(1).optional(),
  text: z.string().default(""),
  tool_calls: z.array(z.strictObject({ name: z.string().min(1), input: z.record(z.string(), z.unknown()).default({}) })).default([]),
});

const ScriptedTurn = z.union([z.strictObject({ choose: z.array(ScriptedReply).min(1) }), ScriptedReply.omit({ when: true })]);

const ScriptFile = z
  .strictObject({
    turns: z.array(ScriptedTurn).min(1),
    /** Calls past the last turn play the turns from this one (1-based) on, again and again. */
    repeat_from: z.int().min(1).optional(),
    /** The text of a summarizing call's answer, before the count of turns it replaces. */
    summary: z.string().min(1).default("The conversation so far was played from a script."),
  })
  .refine((script) => script.repeat_from === undefined || script.repeat_from <= script.turns.length, {
    path: ["repeat_from"],
    message: "names a turn past the last one",
  });

/** A script as written in a file, or given in code to the constructor; validated as a file is. */
export interface ScriptSource {
  /** One entry per model call: `{ text, tool_calls: [{ name, input }] }` or `{ choose: [{ when, text, tool_calls }] }`. */
  turns: Record<string, unknown>[];
  /** Calls past the last turn play the turns from this one (1-based) on, again and again. */
  repeat_from?: number;
  /** The text of a summarizing call's answer, before the count of turns it replaces. */
  summary?: string;
}

type ScriptedReply = z.output<typeof ScriptedReply>;
type Script = z.output<typeof ScriptFile>;

/** Reads a script file; throws an Error naming the file. */
function readScript(path: string): unknown {
  try {
    return parseYaml(readFileSync(path, "utf8"));
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === "ENOENT"
        ? "no such file (check script: in agent.yaml, a path relative to that file)"
        : (error as Error).message.split("\n")[0];
    throw new Error(`cannot read script ${path}: ${reason}`);
  }
}

/** Validates a script; throws an Error whose message names the field. */
function validScript(raw: unknown, name: string): Script {
  const parsed = ScriptFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "script";
    throw new Error(`script ${name}: ${field}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

/** Stands after the text of a summary the script provider wrote: the turns it replaced, so the script goes on after a compaction. */
const PLAYED = /\[script provider: (\d+) turns played\]/g;

/**
 * A deterministic offline model that plays its turns from a YAML script, for demos, tests
 * and reproducible benchmarks: `turns:`, each `{ text, tool_calls: [{ name, input }] }` or
 * `{ choose: [...] }`, which plays its first reply that has no `when` or whose `when` text
 * the latest tool result contains. A call plays the turn after the assistant turns the
 * conversation has had (those a summary replaced included), so a resumed or compacted run
 * continues the script where it left it; with `repeat_from: N`, calls past the last turn
 * play turns N to the last again and again. A summarizing call (its last block is
 * SUMMARY_REQUEST) plays no turn: it answers `summary:` and the count of turns it replaces.
 * A run that asks for a turn past the script's end, or a `choose` none of whose replies
 * fits, fails with a ModelCallError that is not retryable. Token usage is estimated at
 * about four characters a token. The rules in full: docs/script-provider.md.
 */
export class ScriptProvider implements ModelProvider {
  /** Always `"script"`. */
  readonly name = "script";
  readonly #script: Script;
  readonly #name: string;

  /**
   * Reads and validates the script at once.
   * @param script - The script file (YAML), or the script itself (`{ turns: [...] }`, as the file would hold it).
   * @throws Error, naming the file and the field, when the file cannot be read or is not a valid script.
   */
  constructor(script: string | ScriptSource) {
    this.#name = typeof script === "string" ? script : "(given in code)";
    this.#script = validScript(typeof script === "string" ? readScript(script) : script, this.#name);
  }

  async complete(request: ModelRequest, signal: AbortSignal, onText?: (text: string) => void): Promise<ModelTurn> {
    if (signal.aborted) throw new ModelCallError("the model call was aborted", { retryable: false });
    const played = turnsPlayed(request.messages);
    const reply = isSummarizing(request.messages)
      ? { text: `${this.#script.summary} [script provider: ${played} turns played]`, tool_calls: [] }
      : this.#reply(played, request.messages);
    const message = replyMessage(reply, played);
    // Played as one chunk, so the streaming path is exercised offline too.
    if (reply.text !== "") onText?.(reply.text);
    return {
      message,
      stop_reason: reply.tool_calls.length > 0 ? "tool_use" : "end_turn",
      usage: {
        in_tokens: estimateTokens(request.system + JSON.stringify(request.messages)),
        out_tokens: estimateTokens(JSON.stringify(message.content)),
      },
      // The script plays whatever model it is asked for.
      model: request.model,
    };
  }

  #reply(played: number, messages: readonly Message[]): ScriptedReply | Omit<ScriptedReply, "when"> {
    const { turns, repeat_from } = this.#script;
    const position =
      played < turns.length || repeat_from === undefined ? played : repeat_from - 1 + ((played - turns.length) % (turns.length - repeat_from + 1));
    const turn = turns[position];
    if (turn === undefined) {
      throw new ModelCallError(
        `script ${this.#name} has ${turns.length} turns and the run asked for turn ${played + 1}: add turns, set repeat_from, or end the script with a turn that calls no tools`,
        { retryable: false },
      );
    }
    const reply = "choose" in turn ? chooseReply(turn.choose, latestToolResultText(messages)) : turn;
    if (reply === undefined) {
      throw new ModelCallError(`script ${this.#name}: no choice of turn ${position + 1} matches the latest tool result, and none has no 'when'`, {
        retryable: false,
      });
    }
    return reply;
  }
}

/** The assistant turns the conversation has had: those in it, and those the latest summary it opens with replaced. */
function turnsPlayed(messages: readonly Message[]): number {
  const first = messages[0];
  const opening = first?.role === "user" ? first.content.map((block) => (!isOtherBlock(block) && block.type === "text" ? block.text : "")).join("\n") : "";
  const replaced = [...opening.matchAll(PLAYED)].at(-1)?.[1];
  return Number(replaced ?? 0) + messages.filter((message) => message.role === "assistant").length;
}

function isSummarizing(messages: readonly Message[]): boolean {
  const last = messages.at(-1);
  const block = last?.role === "user" ? last.content.at(-1) : undefined;
  return block !== undefined && !isOtherBlock(block) && block.type === "text" && block.text === SUMMARY_REQUEST;
}

function chooseReply(choices: ScriptedReply[], latest: string): ScriptedReply | undefined {
  return choices.find((choice) => choice.when === undefined || latest.includes(choice.when));
}

function replyMessage(reply: Omit<ScriptedReply, "when">, position: number): AssistantMessage {
  const toolUses: ToolUseBlock[] = reply.tool_calls.map((call, index) => ({
    type: "tool_use",
    id: `toolu_script_${position + 1}_${index + 1}`,
    name: call.name,
    input: call.input,
  }));
  return { role: "assistant", content: [...(reply.text === "" ? [] : [{ type: "text" as const, text: reply.text }]), ...toolUses] };
}

function latestToolResultText(messages: readonly Message[]): string {
  const last = messages[messages.length - 1];
  if (last?.role !== "user") return "";
  return last.content
    .map((block) => {
      if (isOtherBlock(block) || block.type !== "tool_result") return "";
      return typeof block.content === "string" ? block.content : block.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    })
    .join("\n");
}

/** About four characters a token: deterministic, so budgets behave the same every run. */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
