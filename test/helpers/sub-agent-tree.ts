// A tree of sessions for the sub-agent tests and bench: a lead agent whose `researcher` tool
// is a child agent (agent: ./researcher.yaml), against the strict Anthropic fake. The fake
// answers from the conversation it is sent, never from a call count, so a resumed run gets
// the same turns: the lead asks two researchers at once (alpha and beta) and reports what
// they found; a researcher notes three lines with its `note` tool, then answers.
// A test can hold a model call (by its key) or a tool call (by its line) open, to kill or
// interrupt the CLI at that exact point.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childRunId } from "../../src/journal.js";
import { startFakeAnthropic, type AnthropicReply, type FakeServer, type RecordedRequest } from "./fake-anthropic-server.js";

const API_KEY = "sk-ant-test-tree";
export const LEAD = "lead";
export const LEAD_CALLS = ["toolu_lead_1", "toolu_lead_2"] as const;
/** The session ids of the two researchers the lead starts. */
export const CHILDREN = LEAD_CALLS.map((call) => childRunId(LEAD, call));
/** How many notes a researcher makes before it answers. */
export const NOTES = 3;

/** What a lead prompt makes the lead do: ask alpha and beta, one researcher that publishes (a confirm tool), one that goes one level too deep, or one whose model call fails. */
export const PROMPTS = { research: "Research alpha and beta", publish: "Publish gamma", deeper: "Go deeper", fail: "Research doomed" } as const;

/** The tokens every model call of the tree uses. */
export const CALL_TOKENS = 110;
const turn = (content: unknown[], stop = "tool_use"): AnthropicReply => ({
  content: content as never,
  stop_reason: stop,
  usage: { input_tokens: 100, output_tokens: CALL_TOKENS - 100 },
});
const use = (id: string, name: string, input: Record<string, unknown>) => ({ type: "tool_use", id, name, input });
const text = (words: string) => ({ type: "text", text: words });

interface Sent {
  system: string;
  messages: { role: string; content: string | { type: string; text?: string; content?: unknown; tool_use_id?: string }[] }[];
}

/** Which agent a request is from and where in its conversation: `lead:N` or `<topic>:N`, N its model calls so far. */
export function requestKey(request: RecordedRequest): string {
  const body = request.body as Sent;
  const turns = body.messages.filter((message) => message.role === "assistant").length;
  return `${agentOf(body)}:${turns}`;
}

function agentOf(body: Sent): string {
  const system = typeof body.system === "string" ? body.system : JSON.stringify(body.system);
  return system.includes("You lead") ? LEAD : firstText(body);
}

function firstText(body: Sent): string {
  const first = body.messages[0]?.content;
  return typeof first === "string" ? first : (first?.map((block) => block.text ?? "").join("") ?? "");
}

function reply(body: Sent): AnthropicReply {
  const turns = body.messages.filter((message) => message.role === "assistant").length;
  if (agentOf(body) === LEAD) {
    const prompt = firstText(body);
    if (turns === 0) {
      const topics =
        prompt === PROMPTS.research
          ? ["alpha", "beta"]
          : prompt === PROMPTS.publish
            ? ["publish-gamma"]
            : prompt === PROMPTS.deeper
              ? ["deeper-delta"]
              : ["fail-doomed"];
      return turn([text("Asking."), ...topics.map((topic, index) => use(LEAD_CALLS[index] as string, "researcher", { prompt: topic, title: `On ${topic}` }))]);
    }
    return turn([text(`Report: ${resultsOf(body).sort().join(" | ")}`)], "end_turn");
  }
  const topic = agentOf(body);
  if (topic.startsWith("fail")) return { status: 400, message: "the fake refuses this topic" } as AnthropicReply;
  if (topic.startsWith("publish"))
    return turns === 0 ? turn([use("toolu_publish", "publish", { text: topic })]) : turn([text(`${topic}: published`)], "end_turn");
  if (topic.startsWith("deeper"))
    return turns === 0 ? turn([use("toolu_deeper", "researcher", { prompt: "alpha" })]) : turn([text(`${topic}: ${resultsOf(body).join("")}`)], "end_turn");
  if (turns < NOTES) return turn([text(`Noting ${turns}.`), use(`toolu_${topic}_${turns}`, "note", { text: `${topic}-${turns}` })]);
  return turn([text(`${topic}: found ${NOTES} notes`)], "end_turn");
}

/** The tool results of the latest user message, as text. */
function resultsOf(body: Sent): string[] {
  const last = body.messages.at(-1)?.content;
  if (typeof last === "string" || last === undefined) return [];
  return last
    .filter((block) => block.type === "tool_result")
    .map((block) => (typeof block.content === "string" ? block.content : JSON.stringify(block.content)));
}

export interface Tree {
  dir: string;
  env: NodeJS.ProcessEnv;
  server: FakeServer;
  /** Holds the model call of `key` (requestKey) open until released. */
  holdCall(key: string): void;
  /** Holds the tool call that notes `line` open (after it wrote its line) until released. */
  holdTool(line: string): void;
  /** Lets every held call go on. */
  releaseAll(): void;
  /** The side-effect lines the tools wrote, in order. */
  effects(): string[];
  /** Whether a model call of `key` has reached the fake. */
  called(key: string): boolean;
  /** The journal file of session `id`. */
  journal(id: string): string;
  /** The ids of the sessions in the store. */
  sessions(): string[];
  close(): Promise<void>;
}

/** A workspace with lead.yaml and researcher.yaml (`parallel_tools` and the max_tokens of the lead), and a fake serving it. */
export async function startTree(options: { parallel?: boolean; leadMaxTokens?: number } = {}): Promise<Tree> {
  const dir = mkdtempSync(join(tmpdir(), "fisk-ai-tree-"));
  const holds = join(dir, "holds");
  mkdirSync(holds);
  const heldCalls = new Set<string>();
  let release: () => void = () => {};
  let released = new Promise<void>((resolve) => (release = resolve));
  const server = await startFakeAnthropic(
    async (request) => {
      if (heldCalls.has(requestKey(request))) await released;
      return reply(request.body as Sent);
    },
    { apiKey: API_KEY },
  );
  const sideLog = join(dir, "effects.log");
  writeFileSync(join(dir, "lead.yaml"), leadYaml(options.parallel ?? true, options.leadMaxTokens));
  writeFileSync(join(dir, "researcher.yaml"), researcherYaml());
  const env = { PATH: process.env.PATH, HOME: dir, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: server.url, SIDE_LOG: sideLog, HOLDS: holds, NO_COLOR: "1" };
  const state = join(dir, "state");
  return {
    dir,
    env,
    server,
    holdCall: (key) => heldCalls.add(key),
    holdTool: (line) => writeFileSync(join(holds, line), ""),
    releaseAll: () => {
      heldCalls.clear();
      release();
      released = new Promise<void>((resolve) => (release = resolve));
      for (const name of readdirSync(holds)) rmSync(join(holds, name));
    },
    effects: () =>
      existsSync(sideLog)
        ? readFileSync(sideLog, "utf8")
            .split("\n")
            .filter((line) => line !== "")
        : [],
    called: (key) => server.requests.some((request) => request.accepted && requestKey(request) === key),
    journal: (id) => join(state, `${id}.json`),
    sessions: () =>
      existsSync(state)
        ? readdirSync(state)
            .filter((name) => name.endsWith(".json"))
            .map((name) => name.slice(0, -".json".length))
        : [],
    close: async () => {
      release();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function leadYaml(parallel: boolean, maxTokens: number | undefined): string {
  return `provider: anthropic
model: claude-sonnet-4-5
system: You lead a research team.
tools:
  - name: researcher
    description: Researches one topic and answers with what it found.
    agent: ./researcher.yaml
parallel_tools: ${parallel}
retry: { max_attempts: 2, base_delay: 10ms }
session: { state_dir: ./state }
${maxTokens === undefined ? "" : `budget: { max_tokens: ${maxTokens} }\n`}`;
}

function researcherYaml(): string {
  // The note tool writes its line first, then waits while a hold file of that line exists:
  // a test kills or interrupts the run right there.
  return `provider: anthropic
model: claude-sonnet-4-5
system: You are a researcher.
max_depth: 1
tools:
  - name: note
    description: Notes a line.
    command: [sh, -c, 'echo "$1" >> "$SIDE_LOG"; while [ -e "$HOLDS/$1" ]; do sleep 0.02; done; echo "noted $1"', sh, "{text}"]
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
  - name: publish
    description: Publishes a line.
    command: [sh, -c, 'echo "published $1" >> "$SIDE_LOG"; echo "published $1"', sh, "{text}"]
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
    confirm: true
  - name: researcher
    description: Researches one topic (a sub-agent of the researcher).
    agent: ./researcher.yaml
retry: { max_attempts: 2, base_delay: 10ms }
`;
}

/** The lead's answer for PROMPTS.research. */
export const RESEARCH_ANSWER = `Report: alpha: found ${NOTES} notes | beta: found ${NOTES} notes\n`;
