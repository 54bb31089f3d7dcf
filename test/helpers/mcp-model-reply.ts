// The model side of the MCP tests: a prompt "use TOOL {json}" calls that tool, a tool's
// result is answered with "Result: ...", anything else with "Answer: ...".
import { latestBlocks, type AnthropicReply, type SentMessage } from "./fake-anthropic-server.js";

export function reply(messages: SentMessage[]): AnthropicReply {
  const blocks = latestBlocks(messages);
  const usage = { input_tokens: 10, output_tokens: 5 };
  const result = blocks.find((block) => block.type === "tool_result");
  if (result !== undefined)
    return {
      content: [{ type: "text", text: `Result: ${typeof result.content === "string" ? result.content : JSON.stringify(result.content)}` }],
      stop_reason: "end_turn",
      usage,
    };
  const text = blocks
    .filter((block) => block.type === "text")
    .map((block) => block.text ?? "")
    .join(" ");
  const use = /^use (\S+) (.*)$/.exec(text);
  if (use === null) return { content: [{ type: "text", text: `Answer: ${text}` }], stop_reason: "end_turn", usage };
  return { content: [{ type: "tool_use", id: `toolu_${messages.length}`, name: use[1], input: JSON.parse(use[2] as string) }], stop_reason: "tool_use", usage };
}
