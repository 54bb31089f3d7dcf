// A plain node:http server that runs an agent session per request and resumes it on the
// next: POST /sessions/ID {"prompt": "..."} starts session ID, POST /sessions/ID with no
// prompt resumes it. A client that hangs up suspends its run at the next step, so the
// session is left resumable instead of running for no one.
// Run (after npm run build:test), offline on the script provider; with ANTHROPIC_API_KEY set, Claude plays the model:
//   PORT=8080 node .test-build/examples/library/http-handler.js sessions
//   curl -d '{"prompt": "What does the page say?"}' http://127.0.0.1:8080/sessions/first
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { AnthropicProvider, defineTool, FileStore, isRunStateError, ResumeRefusedError, runAgent, ScriptProvider } from "fisk-ai";

const store = new FileStore({ dir: process.argv[2] ?? "sessions" });
const key = process.env.ANTHROPIC_API_KEY;
// Offline, the script fetches a data: URL, which needs no network.
const model = key
  ? { provider: new AnthropicProvider({ apiKey: key, baseURL: process.env.ANTHROPIC_BASE_URL }), model: "claude-sonnet-4-5" }
  : {
      provider: new ScriptProvider({
        turns: [
          { tool_calls: [{ name: "fetch_url", input: { url: "data:text/plain,Hello from a data URL" } }] },
          { text: "The page says: Hello from a data URL" },
        ],
      }),
      model: "script-demo",
    };
const fetchUrl = defineTool<{ url: string }>({
  name: "fetch_url",
  description: "Fetches a URL and returns its body",
  input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
  run: async ({ url }, { signal }) => (await fetch(url, { signal })).text(),
});

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const runId = /^\/sessions\/([A-Za-z0-9_-]+)$/.exec(req.url ?? "")?.[1];
  if (req.method !== "POST" || runId === undefined) return reply(res, 404, { error: "POST /sessions/ID" });
  let body = "";
  for await (const chunk of req) body += String(chunk);
  let prompt: unknown;
  try {
    prompt = (JSON.parse(body || "{}") as { prompt?: unknown }).prompt;
  } catch {
    return reply(res, 400, { error: "the body is not JSON" });
  }
  const hungUp = new AbortController();
  res.on("close", () => {
    if (res.writableFinished) return;
    console.error(`client hung up: suspending session ${runId}`);
    hungUp.abort();
  });
  try {
    const outcome = await runAgent({
      ...model,
      tools: [fetchUrl],
      store,
      suspendSignal: hungUp.signal,
      ...(prompt === undefined ? { resume: runId } : { prompt: String(prompt), runId }),
    });
    console.error(`session ${runId}: ${outcome.reason}`);
    reply(res, outcome.reason === "completed" ? 200 : 202, outcome);
  } catch (error) {
    if (isRunStateError(error)) return reply(res, error.code === "ERR_NOT_FOUND" ? 404 : 409, { error: error.message, code: error.code });
    if (error instanceof ResumeRefusedError) return reply(res, 409, { error: error.message });
    reply(res, 400, { error: (error as Error).message });
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (!res.destroyed) res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

const server = createServer((req, res) => void handle(req, res));
server.listen(Number(process.env.PORT ?? 8080), "127.0.0.1", () => {
  const address = server.address();
  console.error(`listening on ${typeof address === "object" && address !== null ? address.port : address}`);
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => server.close(() => void store.close()));
