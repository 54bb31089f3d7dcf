// covers: src/cli/run/open-browser.ts, src/cli/run/terminal-elicit.ts, src/tools/mcp/loopback-redirect.ts
// covers: src/tools/mcp/mcp-auth.ts, src/tools/mcp/mcp-elicitation.ts, src/tools/mcp/sign-in-file.ts
// covers: src/tools/mcp/sign-in-provider.ts
// process: shared
// Signing in to a remote MCP server, end to end: the real CLI against a real OAuth
// authorization server and MCP server on loopback (test/helpers/oauth-mcp-server.ts), the
// browser a headless one that follows the redirects to the CLI's loopback port, the model
// the strict fake Anthropic server. Tokens are checked to stay in their 0600 file.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { spawnSync } from "node:child_process";
import { CLI, type CliResult } from "./helpers/cli-harness.js";
import { startFakeAnthropic, type FakeServer, type SentMessage } from "./helpers/fake-anthropic-server.js";
import { reply } from "./helpers/mcp-model-reply.js";
import { startHttpMcpServer } from "./helpers/mcp-test-server.js";
import { programPath, skipWithout } from "./helpers/programs.js";
import { TmuxTerminal } from "./helpers/tmux-terminal.js";
import { startOAuthMcpServer, type OAuthMcpServer } from "./helpers/oauth-mcp-server.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run", "mcp"]);

const API_KEY = "sk-ant-test-sign-in";
const BROWSER = `"${process.execPath}" "${new URL("./helpers/headless-browser.js", import.meta.url).pathname}"`;
const MACHINE = { id: "build-bot", secret: "s3cret-machine-7f2e" };
const root = realpathSync(mkdtempSync(join(tmpdir(), "fisk-ai-mcp-sign-in-")));
const SOCKET = `fisk-sign-in-${process.pid}`;
after(() => {
  if (programPath("tmux") !== undefined) spawnSync(programPath("tmux") as string, ["-L", SOCKET, "kill-server"]);
  rmSync(root, { recursive: true, force: true });
});

/** "use TOOL {json}" asks for that tool; a tool result is answered with what it said. */
let model: FakeServer;
let server: OAuthMcpServer;
before(async () => {
  model = await startFakeAnthropic(async (request) => reply((request.body as { messages: SentMessage[] }).messages), { apiKey: API_KEY });
  server = await startOAuthMcpServer({ machineClient: MACHINE });
});
after(async () => {
  await model.close();
  await server.close();
});

let workspaces = 0;
function workspace(entry = "") {
  const dir = join(root, `ws-${++workspaces}`);
  mkdirSync(dir);
  writeFileSync(
    join(dir, "agent.yaml"),
    `provider: anthropic
retry: { max_attempts: 2, base_delay: 10ms }
session: { state_dir: ./runs }
mcp_servers:
  - name: tracker
    url: ${server.url}
${entry}`,
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_STATE_HOME: join(dir, "state"),
    ANTHROPIC_API_KEY: API_KEY,
    ANTHROPIC_BASE_URL: model.url,
    NO_COLOR: "1",
  };
  const signInFile = join(dir, "state", "fisk-ai", "mcp-auth", "tracker.json");
  return {
    dir,
    signInFile,
    journal: (runId: string) => readFileSync(join(dir, "runs", `${runId}.json`), "utf8"),
    fisk: (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => cli(args, { cwd: dir, env: { ...env, ...extraEnv } }),
  };
}

function assertDone(result: CliResult, code: number, what: string): void {
  assert.equal(result.code, code, `${what} exited ${result.code}:\n${result.stderr}`);
}

/** No token the authorization server issued appears in `text`. */
function assertNoToken(text: string, where: string): void {
  for (const issued of server.issued) assert.ok(!text.includes(issued), `a token is in ${where}`);
}

describe("signing in to a remote MCP server", () => {
  it("mcp login signs in through the browser and keeps the tokens in a 0600 file; a run without a terminal then uses them, and they reach no record or output", async () => {
    const ws = workspace();
    const [grants, pages] = [server.grants.length, server.authorizations];
    const login = await ws.fisk(["mcp", "login", "tracker"], { BROWSER });
    assertDone(login, 0, "the login");
    assert.match(
      login.stderr,
      /^fisk-ai: sign in to MCP server tracker at http:\/\/127\.0\.0\.1:\d+\/authorize\?.*code_challenge_method=S256.*\nfisk-ai: signed in to MCP server tracker \(7 tools\)\n$/,
    );
    assert.equal(server.authorizations, pages + 1);
    assert.deepEqual(server.grants.slice(grants), ["authorization_code"]);
    assert.equal(statSync(ws.signInFile).mode & 0o777, 0o600);
    assert.equal(statSync(join(ws.signInFile, "..")).mode & 0o777, 0o700);

    const run = await ws.fisk(["run", "--checkpoint", "--name", "r1", 'use tracker__echo {"text":"signed"}']);
    assertDone(run, 0, "the run");
    assert.equal(run.stdout, "Result: echo: signed\n");
    assert.equal(server.authorizations, pages + 1, "the run opened no sign-in page");
    assertNoToken(ws.journal("r1") + run.stderr + run.stdout + login.stdout, "the journal or the output");
  });

  it("a run refreshes an expired token without a prompt", async () => {
    const ws = workspace();
    assertDone(await ws.fisk(["mcp", "login", "tracker"], { BROWSER }), 0, "the login");
    server.expireAccessTokens();
    const [grants, pages] = [server.grants.length, server.authorizations];
    const run = await ws.fisk(["run", 'use tracker__echo {"text":"again"}']);
    assertDone(run, 0, "the run");
    assert.equal(run.stdout, "Result: echo: again\n");
    assert.deepEqual(server.grants.slice(grants), ["refresh_token"]);
    assert.equal(server.authorizations, pages);
  });

  it("a checkpointed run that needs a sign-in no one can give stops before the model call with exit 14 and one line; after mcp login it resumes where it was", async () => {
    const ws = workspace("    confirm: [echo]\n");
    assertDone(await ws.fisk(["mcp", "login", "tracker"], { BROWSER }), 0, "the login");
    const parked = await ws.fisk(["run", "--checkpoint", "--name", "p1", "--approvals", "defer", 'use tracker__echo {"text":"later"}']);
    assertDone(parked, 10, "the parked run");
    const logout = await ws.fisk(["mcp", "logout", "tracker"]);
    assertDone(logout, 0, "the logout");
    assert.equal(logout.stderr, "fisk-ai: signed out of MCP server tracker\n");
    assert.equal(existsSync(ws.signInFile), false);
    assertDone(await ws.fisk(["session", "approve", "p1"]), 0, "the approval");

    const journal = ws.journal("p1");
    const modelCalls = model.requests.length;
    const refused = await ws.fisk(["run", "--resume", "p1"]);
    assertDone(refused, 14, "the resume without a sign-in");
    assert.match(
      refused.stderr,
      /^fisk-ai: MCP server tracker needs a sign-in, which this run cannot ask for: sign in with '.+ mcp login tracker', then '.+ run --resume p1( --config \S+)?'\n$/,
    );
    assert.equal(ws.journal("p1"), journal, "the session is as it was");
    assert.equal(model.requests.length, modelCalls, "no model call was made");

    assertDone(await ws.fisk(["mcp", "login", "tracker"], { BROWSER }), 0, "the login");
    const resumed = await ws.fisk(["run", "--resume", "p1"]);
    assertDone(resumed, 0, "the resume");
    assert.equal(resumed.stdout, "Result: echo: later\n");
    assert.equal(model.requests.length, modelCalls + 1);
  });

  it("a new run with BROWSER set signs in itself; logout twice says there is nothing left", async () => {
    const ws = workspace();
    const pages = server.authorizations;
    const run = await ws.fisk(["run", 'use tracker__echo {"text":"first"}'], { BROWSER });
    assertDone(run, 0, "the run");
    assert.equal(run.stdout, "Result: echo: first\n");
    assert.equal(server.authorizations, pages + 1);
    assertDone(await ws.fisk(["mcp", "logout", "tracker"]), 0, "the logout");
    const again = await ws.fisk(["mcp", "logout", "tracker"]);
    assertDone(again, 0, "the second logout");
    assert.equal(again.stderr, "fisk-ai: there was no sign-in to MCP server tracker to remove\n");
    const unattended = await ws.fisk(["run", "hello"]);
    assertDone(unattended, 14, "a run with no sign-in and no way to ask");
    assert.match(
      unattended.stderr,
      /^fisk-ai: MCP server tracker needs a sign-in, which this run cannot ask for: sign in with '.+ mcp login tracker', then run this command again\n$/,
    );
  });

  it("client credentials: a program signs in with its own id and secret, which reach no record", async () => {
    const ws = workspace("    auth: { grant: client_credentials, client_id: build-bot, client_secret_env: TRACKER_SECRET }\n");
    const grants = server.grants.length;
    const run = await ws.fisk(["run", "--checkpoint", "--name", "c1", 'use tracker__echo {"text":"machine"}'], { TRACKER_SECRET: MACHINE.secret });
    assertDone(run, 0, "the run");
    assert.equal(run.stdout, "Result: echo: machine\n");
    assert.deepEqual(server.grants.slice(grants), ["client_credentials"]);
    assert.ok(!ws.journal("c1").includes(MACHINE.secret));
    assertNoToken(ws.journal("c1"), "the journal");
    assert.equal(existsSync(ws.signInFile), false, "nothing is kept: each run asks for a token");

    const unset = await ws.fisk(["run", "hello"]);
    assertDone(unset, 2, "a secret variable that is not set");
    assert.equal(unset.stderr, "fisk-ai: mcp_servers[0].auth.client_secret_env: TRACKER_SECRET is not set: export the client's secret in it\n");
    const login = await ws.fisk(["mcp", "login", "tracker"]);
    assertDone(login, 2, "a login to a client-credentials server");
    assert.equal(login.stderr, "fisk-ai: MCP server tracker signs in with its client's own credentials (grant: client_credentials): no person signs in\n");
  });

  it("a sign-in the person refuses fails in one line naming the server and why, exit 1, and keeps no token", async () => {
    const ws = workspace();
    server.refuseSignIn = true;
    try {
      const login = await ws.fisk(["mcp", "login", "tracker"], { BROWSER });
      assertDone(login, 1, "a refused sign-in");
      assert.match(
        login.stderr.split("\n").at(-2) ?? "",
        /^fisk-ai: MCP server tracker \(http:\/\/127\.0\.0\.1:\d+\/mcp\) did not start or list its tools: the sign-in to MCP server tracker failed: the user refused$/,
      );
      assert.equal(login.stderr.split("\n").length, 3, "the page's URL, then the one line");
      assert.equal(JSON.parse(readFileSync(ws.signInFile, "utf8")).tokens, undefined);
    } finally {
      server.refuseSignIn = false;
    }
  });

  it("a server that asks for no sign-in: login says so, and nothing is kept", async () => {
    const plain = await startHttpMcpServer();
    try {
      const ws = workspace();
      writeFileSync(join(ws.dir, "agent.yaml"), `mcp_servers:\n  - name: open\n    url: ${plain.url}\n`);
      const login = await ws.fisk(["mcp", "login", "open"], { BROWSER });
      assertDone(login, 0, "the login");
      assert.equal(login.stderr, "fisk-ai: MCP server open did not ask for a sign-in; its 7 tools are ready\n");
      assert.equal(existsSync(join(ws.dir, "state", "fisk-ai", "mcp-auth", "open.json")), false);
    } finally {
      await plain.close();
    }
  });

  it("mcp login names what is wrong with the server it is given", async () => {
    const ws = workspace();
    const unknown = await ws.fisk(["mcp", "login", "nope"]);
    assertDone(unknown, 2, "an unknown server");
    assert.equal(unknown.stderr, "fisk-ai: there is no MCP server nope in the configuration (it has: tracker); give --config FILE for another\n");
    const badName = await ws.fisk(["mcp", "logout", "../x"]);
    assertDone(badName, 2, "a name that is no server's");
    assert.equal(badName.stderr, "fisk-ai: mcp logout takes the name of an MCP server in agent.yaml (1 to 32 letters, digits or '-')\n");
    const badConfig = await ws.fisk(["run", "hello"], {});
    assertDone(badConfig, 14, "no sign-in");
    writeFileSync(join(ws.dir, "agent.yaml"), `mcp_servers:\n  - name: tracker\n    url: ${server.url}\n    auth: { private_key_file: key.pem }\n`);
    const mismatched = await ws.fisk(["mcp", "login", "tracker"]);
    assertDone(mismatched, 2, "a private key without client credentials");
    assert.match(mismatched.stderr, /private_key_file goes with grant: client_credentials/);
  });
});

describe("questions from a server (elicitation)", () => {
  it("are asked on a terminal: the message, then each field with its default (an empty line keeps it), a value of the wrong type asked again", {
    skip: skipWithout("tmux"),
  }, async () => {
    const ws = workspace("    elicitation: { answers: { count: 99 } }\n");
    assertDone(await ws.fisk(["mcp", "login", "tracker"], { BROWSER }), 0, "the login");
    const env = {
      PS1: "$ ",
      NO_COLOR: "1",
      PATH: process.env.PATH ?? "",
      HOME: ws.dir,
      XDG_STATE_HOME: join(ws.dir, "state"),
      ANTHROPIC_API_KEY: API_KEY,
      ANTHROPIC_BASE_URL: model.url,
    };
    const terminal = new TmuxTerminal(SOCKET, "ask", env, { width: 120, height: 30 });
    try {
      terminal.line(`cd ${ws.dir} && "${process.execPath}" "${CLI}" run 'use tracker__ask {}'; echo "exit $?"`);
      await terminal.waitFor((screen) => screen.includes("Answer? [Y/n]"), "the question");
      assert.match(terminal.screen(), /^MCP server tracker asks: Who is asking, and how many\?$/m);
      terminal.line("");
      await terminal.waitFor((screen) => screen.includes("name (Your name) [Ada]:"), "the first field");
      terminal.line("");
      await terminal.waitFor((screen) => screen.includes("count (How many):"), "the second field");
      terminal.line("lots");
      await terminal.waitFor((screen) => screen.includes("expected a whole number"), "the field asked again");
      terminal.line("4");
      const screen = await terminal.waitFor((shown) => /^exit \d+$/m.test(shown), "the run to end");
      assert.match(screen, /^Result: accept \{"count":4,"name":"Ada"\}$/m, "the terminal's answer, not agent.yaml's");
      assert.match(screen, /^exit 0$/m);
    } finally {
      terminal.close();
    }
  });

  it("are answered from agent.yaml's answers with the schema's defaults where no terminal can ask, and declined where no one can answer", async () => {
    const answered = workspace("    elicitation: { answers: { count: 3 } }\n");
    assertDone(await answered.fisk(["mcp", "login", "tracker"], { BROWSER }), 0, "the login");
    const run = await answered.fisk(["run", "--checkpoint", "--name", "e1", "use tracker__ask {}"]);
    assertDone(run, 0, "the run");
    assert.equal(run.stdout, 'Result: accept {"count":3,"name":"Ada"}\n');
    assert.ok(answered.journal("e1").includes('accept {\\"count\\":3,\\"name\\":\\"Ada\\"}'), "the answer is journaled with the call's result");

    const declined = workspace();
    assertDone(await declined.fisk(["mcp", "login", "tracker"], { BROWSER }), 0, "the login");
    const unanswered = await declined.fisk(["run", "use tracker__ask {}"]);
    assertDone(unanswered, 0, "the run");
    assert.equal(unanswered.stdout, "Result: decline {}\n");
  });
});
