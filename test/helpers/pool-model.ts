// The strict fake Anthropic server as the model of the pool's tests: it answers by the
// conversation it is sent, not by the order calls arrive in, so many runs driven by many
// workers at once (and resumed after a kill) each get their own script: note "one", note
// "two", then "two notes written"; a follow-up (a prompt after the first) is answered in text. A
// prompt ending "for NAME" has its notes named "NAME-one", "NAME-two", so each run's side
// effects can be told apart.
import type { AnthropicReply } from "./fake-anthropic-server.js";
import { latestBlocks, startFakeAnthropic, type FakeServer, type SentMessage } from "./fake-anthropic-server.js";

export const POOL_API_KEY = "sk-ant-pool-test";
/** What the tests' follow-ups start with, to tell them apart in a journal. */
export const FOLLOW_UP = "Follow-up:";

const usage = { input_tokens: 10, output_tokens: 5 };
const note = (text: string): AnthropicReply => ({
  content: [{ type: "tool_use", id: `toolu_${text}`, name: "note", input: { text } }],
  stop_reason: "tool_use",
  usage,
});
const say = (text: string): AnthropicReply => ({ content: [{ type: "text", text }], stop_reason: "end_turn", usage });
const script = (tag: string) => [note(`${tag}one`), note(`${tag}two`), say("two notes written")];

/** The answer the fake gives a follow-up. */
export function followUpAnswer(prompt: string): string {
  return `done: ${prompt}`;
}

/** Starts the fake; `slowMs`: its slow mode, every answer that much late. */
export function startPoolModel(options: { slowMs?: number } = {}): Promise<FakeServer> {
  return startFakeAnthropic(
    (request) => {
      const messages = (request.body as { messages: SentMessage[] }).messages;
      const latest = latestBlocks(messages)
        .map((block) => (block.type === "text" ? (block.text ?? "") : ""))
        .join("");
      if (messages.length > 1 && latest !== "") return say(followUpAnswer(latest));
      const first = messages[0]?.content;
      const prompt = typeof first === "string" ? first : (first?.map((block) => block.text ?? "").join("") ?? "");
      const tag = /for (\S+)$/.exec(prompt)?.[1];
      const position = messages.filter((message) => message.role === "assistant").length;
      const reply = script(tag === undefined ? "" : `${tag}-`)[position];
      if (reply === undefined) throw new Error(`the pool's script has no turn ${position}`);
      return reply;
    },
    { apiKey: POOL_API_KEY, ...(options.slowMs === undefined ? {} : { slowMs: options.slowMs }) },
  );
}

/** How many calls the fake refused: a strict fake refuses a malformed conversation. */
export function refusedCalls(server: FakeServer): string[] {
  return server.requests.filter((request) => !request.accepted).map((request) => request.rejection ?? `status ${request.status}`);
}
