// Suspend a run with Ctrl-C, resume it in another process: the session is journaled to a
// directory, and the tool whose result is journaled does not run again.
//   node suspend-resume.js start DIR "prompt"   (Ctrl-C while it works: it suspends)
//   node suspend-resume.js resume DIR SESSION_ID
import { AnthropicProvider, defineTool, FileStore, runAgent } from "fisk-ai";

const [command, dir, argument] = process.argv.slice(2);
if ((command !== "start" && command !== "resume") || dir === undefined || argument === undefined) {
  console.error("usage: suspend-resume.js start DIR PROMPT | resume DIR SESSION_ID");
  process.exit(2);
}

// The first Ctrl-C asks the run to suspend at its next step; the run ends "suspended".
const suspend = new AbortController();
process.once("SIGINT", () => {
  console.error("suspending at the next step");
  suspend.abort();
});

const fetchUrl = defineTool<{ url: string }>({
  name: "fetch_url",
  description: "Fetches a URL and returns its body",
  input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
  run: async ({ url }, { signal }) => {
    console.error(`fetching ${url}`);
    const response = await fetch(url, { signal });
    return response.text();
  },
});

const store = new FileStore({ dir });
try {
  const outcome = await runAgent({
    provider: new AnthropicProvider({ apiKey: process.env.ANTHROPIC_API_KEY ?? "", baseURL: process.env.ANTHROPIC_BASE_URL }),
    model: "claude-sonnet-4-5",
    tools: [fetchUrl],
    store,
    signal: suspend.signal,
    ...(command === "start" ? { prompt: argument } : { resume: argument }),
  });
  console.log(JSON.stringify({ runId: outcome.runId, reason: outcome.reason, answer: outcome.answer, toolCalls: outcome.counters.toolCalls }));
} finally {
  await store.close();
}
