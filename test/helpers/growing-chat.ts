// A model for the strict fake Anthropic server whose conversation keeps growing: each call
// asks for the `fetch` tool again (whose results the test makes large) until `toolCalls`
// calls were made, then answers; a request that ends with fisk-ai's summary request is
// answered with a short summary. Its usage reports the tokens the fake counts, as a real
// API reports its own, unless `reportedInput` says otherwise.
import { SUMMARY_REQUEST } from "../../src/llm/model-provider.js";
import { requestTokens, type AnthropicReply, type SentMessage } from "./fake-anthropic-server.js";
import type { JsonObject, RecordedRequest } from "./http-json.js";

export interface GrowingChat {
  respond(request: RecordedRequest): AnthropicReply;
  /** The summarizing requests answered. */
  summaries: number;
  /** The agent's own calls answered. */
  calls: number;
}

export function isSummarizing(request: RecordedRequest): boolean {
  const messages = (request.body as { messages?: SentMessage[] }).messages ?? [];
  const last = messages.at(-1)?.content;
  return Array.isArray(last) && last.some((block) => block.type === "text" && block.text === SUMMARY_REQUEST);
}

/**
 * `toolCalls` per prompt: it answers the call after that many since the latest prompt it
 * saw. The prompt is the latest user text that is not a summary: once a compaction
 * summarized the prompt away, the one seen last still counts.
 */
export function growingChat(options: { toolCalls: number; reportedInput?: number }): GrowingChat {
  let prompt: string | undefined;
  let sincePrompt = 0;
  const chat: GrowingChat = {
    summaries: 0,
    calls: 0,
    respond(request) {
      const body = request.body as JsonObject;
      const usage = { input_tokens: options.reportedInput ?? requestTokens(body), output_tokens: 20 };
      if (isSummarizing(request)) {
        chat.summaries++;
        return {
          content: [{ type: "text", text: `Summary ${chat.summaries}: the user asked for pages; they were fetched and read.` }],
          stop_reason: "end_turn",
          usage,
        };
      }
      chat.calls++;
      const latest = latestPrompt(body.messages as SentMessage[]);
      if (latest !== undefined && latest !== prompt) {
        prompt = latest;
        sincePrompt = 0;
      }
      if (sincePrompt++ >= options.toolCalls) return { content: [{ type: "text", text: `Done with: ${prompt ?? ""}` }], stop_reason: "end_turn", usage };
      return {
        content: [{ type: "tool_use", id: `toolu_${String(chat.calls).padStart(5, "0")}`, name: "fetch", input: { page: chat.calls } }],
        stop_reason: "tool_use",
        usage,
      };
    },
  };
  return chat;
}

const SUMMARY_MARK = "[The conversation so far was compacted";

function latestPrompt(messages: readonly SentMessage[]): string | undefined {
  for (const message of [...messages].reverse()) {
    if (message.role !== "user" || typeof message.content === "string") continue;
    const texts = message.content.filter((block) => block.type === "text" && !String(block.text).startsWith(SUMMARY_MARK));
    if (texts.length > 0) return String(texts.at(-1)?.text);
  }
  return undefined;
}
