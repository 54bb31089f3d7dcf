// The script provider: a deterministic offline model that plays turns from a file, for
// demos, tests and reproducible benchmarks. It keeps no state of its own: the turn to
// play is the number of assistant turns already in the conversation, so a resumed run
// in a fresh process continues the script where the journal left it.
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import * as z from "zod";
import { isOtherBlock, type AssistantMessage, type Message, type ToolUseBlock } from "../runstate/records.js";
import { ModelCallError, type ModelProvider, type ModelRequest, type ModelTurn } from "./model-provider.js";

const ScriptedReply = z.strictObject({
  /** Chosen when the latest tool result contains this text. */
  when: z.string().min(1).optional(),
  text: z.string().default(""),
  tool_calls: z
    .array(z.strictObject({ name: z.string().min(1), input: z.record(z.string(), z.unknown()).default({}) }))
    .default([]),
});

const ScriptedTurn = z.union([
  z.strictObject({ choose: z.array(ScriptedReply).min(1) }),
  ScriptedReply.omit({ when: true }),
]);

const ScriptFile = z.strictObject({ turns: z.array(ScriptedTurn).min(1) });

type ScriptedReply = z.output<typeof ScriptedReply>;
type ScriptedTurn = z.output<typeof ScriptedTurn>;

/** Reads and validates a script; throws an Error whose message names the field. */
function loadScript(path: string): ScriptedTurn[] {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, "utf8"));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file (check script: in agent.yaml, a path relative to that file)" : (error as Error).message.split("\n")[0];
    throw new Error(`cannot read script ${path}: ${reason}`);
  }
  const parsed = ScriptFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "script";
    throw new Error(`script ${path}: ${field}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data.turns;
}

/**
 * A deterministic offline model that plays its turns from a YAML script, for demos, tests
 * and reproducible benchmarks: `turns:`, each `{ text, tool_calls: [{ name, input }] }` or
 * `{ choose: [...] }`, which plays its first reply that has no `when` or whose `when` text
 * the latest tool result contains. The turn played is the one after the assistant turns
 * already in the conversation, so a resumed run continues the script where the journal left it.
 * A run that asks for a turn past the script's end, or a `choose` none of whose replies
 * fits, fails with a ModelCallError that is not retryable. Token usage is estimated at
 * about four characters a token.
 */
export class ScriptProvider implements ModelProvider {
  /** Always `"script"`. */
  readonly name = "script";
  readonly #turns: ScriptedTurn[];
  readonly #path: string;

  /**
   * Reads and validates the script at once.
   * @param path - The script file (YAML).
   * @throws Error, naming the file and the field, when the file cannot be read or is not a valid script.
   */
  constructor(path: string) {
    this.#path = path;
    this.#turns = loadScript(path);
  }

  async complete(request: ModelRequest, signal: AbortSignal, onText?: (text: string) => void): Promise<ModelTurn> {
    if (signal.aborted) throw new ModelCallError("the model call was aborted", { retryable: false });
    const position = request.messages.filter((message) => message.role === "assistant").length;
    const turn = this.#turns[position];
    if (turn === undefined) {
      throw new ModelCallError(
        `script ${this.#path} has ${this.#turns.length} turns and the run asked for turn ${position + 1}: add turns, or end the script with a turn that calls no tools`,
        { retryable: false },
      );
    }
    const reply = "choose" in turn ? chooseReply(turn.choose, latestToolResultText(request.messages)) : turn;
    if (reply === undefined) {
      throw new ModelCallError(`script ${this.#path}: no choice of turn ${position + 1} matches the latest tool result, and none has no 'when'`, {
        retryable: false,
      });
    }
    const message = replyMessage(reply, position);
    // Played as one chunk, so the streaming path is exercised offline too.
    if (reply.text !== "") onText?.(reply.text);
    return {
      message,
      stop_reason: reply.tool_calls.length > 0 ? "tool_use" : "end_turn",
      usage: {
        in_tokens: estimateTokens(request.system + JSON.stringify(request.messages)),
        out_tokens: estimateTokens(JSON.stringify(message.content)),
      },
    };
  }
}

function chooseReply(choices: ScriptedReply[], latest: string): ScriptedReply | undefined {
  return choices.find((choice) => choice.when === undefined || latest.includes(choice.when));
}

function replyMessage(reply: ScriptedReply, position: number): AssistantMessage {
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
