// The client the official MCP conformance suite runs, once per scenario, with the scenario's
// server URL as its argument: the real CLI, `fisk-ai run`, with an agent.yaml naming that
// server and the strict fake Anthropic server as the model, which calls every tool the
// server offers once. Sign-in goes through the headless browser (BROWSER), questions are
// answered from agent.yaml, and the client's own credentials of a scenario's context
// (MCP_CONFORMANCE_CONTEXT) go in agent.yaml and the environment as a user would put them.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, startScript } from "./cli-harness.js";
import { latestBlocks, startFakeAnthropic, type AnthropicReply, type SentMessage } from "./fake-anthropic-server.js";

const BROWSER = new URL("./headless-browser.js", import.meta.url).pathname;
/** The suite's own client ID metadata document URL, which its authorization server accepts. */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";
const API_KEY = "sk-ant-conformance";
const SECRET_VARIABLE = "CONFORMANCE_CLIENT_SECRET";

interface Context {
  name?: string;
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
}

type ToolSpec = { name: string; input_schema: { properties?: Record<string, { type?: string }> } };

/** First turn: every tool, with a made-up value of each argument's type; then an answer. */
function reply(body: { messages: SentMessage[]; tools?: ToolSpec[] }): AnthropicReply {
  const usage = { input_tokens: 10, output_tokens: 5 };
  if (latestBlocks(body.messages).some((block) => block.type === "tool_result") || (body.tools ?? []).length === 0) {
    return { content: [{ type: "text", text: "done" }], stop_reason: "end_turn", usage };
  }
  const uses = (body.tools ?? []).map((tool, index) => ({ type: "tool_use", id: `toolu_${index}`, name: tool.name, input: madeUpInput(tool) }));
  return { content: uses, stop_reason: "tool_use", usage };
}

function madeUpInput(tool: ToolSpec): Record<string, unknown> {
  const value = (type: string | undefined) => (type === "number" || type === "integer" ? 2 : type === "boolean" ? true : "x");
  return Object.fromEntries(Object.entries(tool.input_schema.properties ?? {}).map(([name, property]) => [name, value(property.type)]));
}

/** The `auth:` of the server's entry in agent.yaml, and the environment it reads. */
function authFor(context: Context, dir: string): { yaml: string; env: NodeJS.ProcessEnv } {
  const secretEnv = { [SECRET_VARIABLE]: context.client_secret };
  switch (context.name) {
    case "auth/client-credentials-basic":
      return { yaml: `{ grant: client_credentials, client_id: ${context.client_id}, client_secret_env: ${SECRET_VARIABLE} }`, env: secretEnv };
    case "auth/client-credentials-jwt": {
      writeFileSync(join(dir, "client-key.pem"), context.private_key_pem ?? "", { mode: 0o600 });
      return {
        yaml: `{ grant: client_credentials, client_id: ${context.client_id}, private_key_file: client-key.pem, algorithm: ${context.signing_algorithm ?? "ES256"} }`,
        env: {},
      };
    }
    case "auth/pre-registration":
      return { yaml: `{ client_id: ${context.client_id}, client_secret_env: ${SECRET_VARIABLE} }`, env: secretEnv };
    default:
      return { yaml: `{ client_metadata_url: "${CLIENT_METADATA_URL}" }`, env: {} };
  }
}

const url = process.argv[2];
if (url === undefined) throw new Error("usage: conformance-client SERVER_URL (the conformance suite gives it)");
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Context;
const dir = mkdtempSync(join(tmpdir(), "fisk-ai-conformance-"));
const model = await startFakeAnthropic(async (request) => reply(request.body as { messages: SentMessage[]; tools?: ToolSpec[] }), { apiKey: API_KEY });
try {
  const auth = authFor(context, dir);
  writeFileSync(
    join(dir, "agent.yaml"),
    `provider: anthropic
retry: { max_attempts: 2, base_delay: 10ms }
session: { state_dir: ./runs }
mcp_servers:
  - name: conformance
    url: ${JSON.stringify(url)}
    auth: ${auth.yaml}
    elicitation: { answers: {} }
`,
  );
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_STATE_HOME: join(dir, "state"),
    ANTHROPIC_API_KEY: API_KEY,
    ANTHROPIC_BASE_URL: model.url,
    NO_COLOR: "1",
    BROWSER: `"${process.execPath}" "${BROWSER}"`,
    ...auth.env,
  };
  const run = await startScript(CLI, ["run", "--checkpoint", "call every tool"], { cwd: dir, env }).done;
  process.stdout.write(run.stdout);
  process.stderr.write(run.stderr);
  process.exitCode = run.code ?? 1;
} finally {
  await model.close();
  rmSync(dir, { recursive: true, force: true });
}
