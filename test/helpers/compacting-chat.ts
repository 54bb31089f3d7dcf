// The scripted chat of issue 24's measurements, shared by bench/compaction.bench.ts and the
// test that asserts its key figures: `followUps` follow-ups, each answered after one call of a
// tool whose result is about `pageBytes`, through the loop with auto compaction, against the
// strict fake Anthropic server with a `window`-token context window, journaled to a FileStore.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startRun } from "../../src/agent/agent-loop.js";
import { agentSpec } from "../../src/agent/agent-spec.js";
import { FileStore, type JournalRecord, type RunOutcome } from "../../src/index.js";
import type { CompactionRecord } from "../../src/journal.js";
import { AnthropicProvider } from "../../src/llm/anthropic-provider.js";
import { commandTool } from "../../src/tools/command-tool.js";
import { compileInputCheck } from "../../src/tools/tool-input.js";
import { requestTokens, startFakeAnthropic } from "./fake-anthropic-server.js";
import { growingChat, isSummarizing } from "./growing-chat.js";
import type { JsonObject } from "./http-json.js";

export interface CompactionFigures {
  /** The compaction record's seq. */
  seq: number;
  /** Bytes of its journal line: what it adds. */
  recordBytes: number;
  /** Bytes of its summary (UTF-8). */
  summaryBytes: number;
  /** Bytes of the journal lines of the records it summarizes for the first time (from_seq to through_seq). */
  replacedBytes: number;
  tokensBefore: number;
  tokensAfter: number;
}

export interface ChatFigures {
  outcome: RunOutcome;
  /** Requests of the agent's own calls and of the summarizing calls. */
  requests: number;
  summarizingRequests: number;
  /** Requests the fake refused (as over the window, or otherwise). */
  refused: number;
  /** The largest request the fake accepted, in its tokens. */
  largestRequest: number;
  journalBytes: number;
  /** The bytes of every record but the compactions: what the journal holds without compaction. */
  otherBytes: number;
  compactions: CompactionFigures[];
  /** The journal's records. */
  records: JournalRecord[];
}

const KEY = "sk-ant-compacting-chat";

export async function runCompactingChat(options: { followUps: number; window: number; pageBytes: number; dir: string }): Promise<ChatFigures> {
  const chat = growingChat({ toolCalls: 1 });
  const server = await startFakeAnthropic((request) => chat.respond(request), { apiKey: KEY, contextWindow: options.window });
  try {
    const store = new FileStore({ dir: options.dir });
    let asked = 0;
    const schema = { type: "object", properties: { page: { type: "number" } }, required: ["page"] };
    const fetch = commandTool({
      name: "fetch",
      description: "Fetch a page",
      command: ["sh", "-c", `printf "page %s: " "$1"; head -c ${options.pageBytes} /dev/zero | tr "\\0" x`, "sh", "{page}"],
      input_schema: schema,
      inputCheck: await compileInputCheck(schema),
      timeoutMs: 30_000,
      outputLimitBytes: 1024 * 1024,
      confirm: false,
      onCrash: "rerun",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });
    const outcome = await startRun(
      {
        spec: agentSpec({
          provider: new AnthropicProvider({ apiKey: KEY, baseURL: server.url }),
          model: "claude-bench-window",
          system: "You read pages.",
          tools: [fetch],
          parallelTools: false,
          budget: { maxOutputTokens: 1024, maxTokens: Number.MAX_SAFE_INTEGER, maxIterations: 10 },
          thinking: { mode: "off" },
          retry: { attempts: 1, baseDelayMs: 10, timeoutMs: 30_000 },
          compaction: { auto: true, threshold: 0.8, window: options.window, keepRecent: 4 },
        }),
        store,
        nextPrompt: async () => (asked < options.followUps ? `follow-up ${++asked}: read the next page` : undefined),
      },
      { prompt: "read the first page", runId: "compacting-chat" },
    );
    await store.close();
    const lines = readFileSync(join(options.dir, "compacting-chat.json"), "utf8")
      .split("\n")
      .filter((line) => line !== "");
    const records = lines.map((line) => JSON.parse(line) as JournalRecord);
    const bytes = lines.map((line) => Buffer.byteLength(line) + 1);
    const compactions = records
      .filter((record): record is CompactionRecord => record.protocol === "io.choria.fisk-ai.v1.session.compaction")
      .map(({ seq, compaction }) => ({
        seq,
        recordBytes: bytes[seq - 1] as number,
        summaryBytes: Buffer.byteLength(compaction.summary),
        replacedBytes: bytes.slice(compaction.from_seq - 1, compaction.through_seq).reduce((sum, size) => sum + size, 0),
        tokensBefore: compaction.tokens_before,
        tokensAfter: compaction.tokens_after,
      }));
    const accepted = server.requests.filter((request) => request.accepted);
    const journalBytes = bytes.reduce((sum, size) => sum + size, 0);
    return {
      outcome,
      requests: server.requests.length,
      summarizingRequests: server.requests.filter(isSummarizing).length,
      refused: server.requests.length - accepted.length,
      largestRequest: Math.max(...accepted.map((request) => requestTokens(request.body as JsonObject))),
      journalBytes,
      otherBytes: journalBytes - compactions.reduce((sum, entry) => sum + entry.recordBytes, 0),
      compactions,
      records,
    };
  } finally {
    await server.close();
  }
}
