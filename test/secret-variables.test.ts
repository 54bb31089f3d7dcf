// covers: src/config/secret-variables.ts, src/tools/tool-env.ts, src/config/run-options.ts
// Every variable an agent.yaml names as a secret (SECRET_SOURCES) is withheld from command
// tools and stdio MCP servers that do not name it: a real run through the built CLI with an
// HTTP MCP server behind a header token, one signed in with client credentials, a traced
// collector's key, a command tool and a stdio server that print their whole environment.
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SECRET_SOURCES, secretVariables } from "../src/config/secret-variables.js";
import { CREDENTIAL_VARIABLES } from "../src/tools/tool-env.js";
import { loadAgentConfig } from "../src/config/agent-config.js";
import { runWithMarkedSecrets } from "./helpers/environment-marks.js";
import { startHttpMcpServer, type HttpMcpServer } from "./helpers/mcp-test-server.js";
import { startOAuthMcpServer, type OAuthMcpServer } from "./helpers/oauth-mcp-server.js";
import { startOtlpReceiver, type OtlpReceiver } from "./helpers/otlp-receiver.js";

const SERVER = new URL("./helpers/mcp-test-server.js", import.meta.url).pathname;
const root = realpathSync(mkdtempSync(join(tmpdir(), "fisk-ai-secret-variables-")));
let http: HttpMcpServer;
let oauth: OAuthMcpServer;
let collector: OtlpReceiver;
before(async () => {
  http = await startHttpMcpServer();
  oauth = await startOAuthMcpServer({ machineClient: { id: "machine", secret: "MARK-client-secret" } });
  collector = await startOtlpReceiver();
});
after(async () => {
  await http.close();
  await oauth.close();
  await collector.close();
  rmSync(root, { recursive: true, force: true });
});

/** The runtime's own credentials, withheld whatever the file says (tool-env.test.ts runs them through a tool). */
const ALWAYS = "(always) provider keys, NATS and OTLP credentials";

/** For each source of SECRET_SOURCES but ALWAYS: the agent.yaml lines that name a secret through it, and the variable and value. */
function agentYaml(): { yaml: string; secrets: Record<string, string>; byField: Record<string, string> } {
  const byField: Record<string, string> = {
    env_deny: "SITE_TOKEN",
    "telemetry.headers_env": "TRACE_KEY",
    "mcp_servers[].auth.client_secret_env": "CLIENT_SECRET",
    "mcp_servers[].headers": "HEADER_TOKEN",
  };
  const yaml = [
    "provider: script",
    "script: ./s.yaml",
    "env_deny: [SITE_TOKEN]",
    `telemetry: { endpoint: "${collector.url}", headers_env: { x-api-key: TRACE_KEY } }`,
    "tools:",
    "  - { name: printenv, description: Print the environment, command: [env] }",
    "mcp_servers:",
    `  - { name: web, url: "${http.url}", headers: { X-Token: "t-\${HEADER_TOKEN}" } }`,
    `  - name: machine`,
    `    url: "${oauth.url}"`,
    "    auth: { grant: client_credentials, client_id: machine, client_secret_env: CLIENT_SECRET }",
    `  - { name: local, command: "${process.execPath}", args: ["${SERVER}"] }`,
  ].join("\n");
  const secrets = { SITE_TOKEN: "MARK-site", TRACE_KEY: "MARK-trace", CLIENT_SECRET: "MARK-client-secret", HEADER_TOKEN: "MARK-header" };
  return { yaml, secrets, byField };
}

describe("secret variables an agent.yaml names", () => {
  it("the test below names a secret through every source the list has", () => {
    assert.deepEqual(SECRET_SOURCES.map((source) => source.field).sort(), [ALWAYS, ...Object.keys(agentYaml().byField)].sort());
  });

  it("lists each source's variable for a config that uses them all", () => {
    const dir = mkdtempSync(join(root, "list-"));
    const { yaml, byField } = agentYaml();
    writeFileSync(join(dir, "agent.yaml"), yaml);
    writeFileSync(join(dir, "s.yaml"), "turns:\n  - text: done\n");
    const config = loadAgentConfig(join(dir, "agent.yaml"));
    for (const source of SECRET_SOURCES) {
      assert.deepEqual(source.names(config), source.field === ALWAYS ? CREDENTIAL_VARIABLES : [byField[source.field]], source.field);
    }
    assert.deepEqual(secretVariables(config), [...CREDENTIAL_VARIABLES, ...Object.values(byField)]);
  });

  it("a command tool and a stdio MCP server that print their whole environment put none of them into the journal", async () => {
    const dir = mkdtempSync(join(root, "run-"));
    const { yaml, secrets } = agentYaml();
    writeFileSync(join(dir, "agent.yaml"), yaml);
    writeFileSync(
      join(dir, "s.yaml"),
      "turns:\n  - tool_calls: [{ name: printenv }, { name: local__environment }, { name: web__echo, input: { text: hi } }, { name: machine__echo, input: { text: hi } }]\n  - text: done\n",
    );
    const { result, journal, marks } = await runWithMarkedSecrets(dir, secrets);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(journal.match(/VISIBLE_SETTING/g)?.length, 2, "both printed their environment");
    assert.equal(journal.match(/echo: hi/g)?.length, 2, "both HTTP servers were reached with their secrets");
    assert.ok(http.authorizations.length > 0);
    assert.deepEqual(marks, [], "no secret reaches a tool or a stdio server");
  });
});
