// One-line descriptions of tool calls and results, shared by the live trace, the resume
// replay and (later) session show --transcript.
import type { Message, OtherBlock, ToolResultBlock, ToolUseBlock } from "../runstate/records/records.js";
import { counted } from "./counted.js";

export type ContentBlockLike = Message["content"][number];

const MAX_LINE = 200;

export function describeToolUse(use: ToolUseBlock): string {
  return clip(`${use.name} ${JSON.stringify(use.input)}`);
}

/** A result's content as text, images named in brackets. */
export function toolResultText(result: ToolResultBlock): string {
  const text =
    typeof result.content === "string" ? result.content : result.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
  return text.trimEnd();
}

export function describeToolResult(result: ToolResultBlock): string {
  const lines = toolResultText(result).split("\n");
  const more = lines.length > 1 ? ` (+${counted(lines.length - 1, "more line")})` : "";
  return `${clip(lines[0] ?? "")}${more}`;
}

/**
 * A block the code does not model, or a server tool's result: `[<type>]` and what it
 * carries that a person can read (its name, a query, its text), never its raw payload.
 */
export function describeOtherBlock(block: OtherBlock): string {
  const said = ["name", "text", "tool_use_id"].flatMap((field) => (typeof block[field] === "string" ? [`${field} ${String(block[field])}`] : []));
  return clip(`[${block.type}]${said.length > 0 ? ` ${said.join(", ")}` : ""}`);
}

function clip(text: string): string {
  return text.length > MAX_LINE ? `${text.slice(0, MAX_LINE)}…` : text;
}
