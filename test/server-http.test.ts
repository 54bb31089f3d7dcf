// covers: src/server/create-server.ts, src/server/routes/runs.ts, src/server/routes/events.ts, src/server/routes/event-stream.ts, src/server/text-deltas.ts
// covers: src/server/routes/approvals.ts, src/server/routes/health.ts, src/server/routes/route.ts, src/server/access.ts
// covers: src/server/problem.ts, src/server/schemas.ts, src/server/principal.ts, src/server/server-context.ts, src/server/index.ts
// covers: src/client/fisk-client.ts, src/client/api-types.ts, src/client/index.ts, src/cli/serve/serve-command.ts, src/cli/serve/serve.ts
// covers: src/pool/submit-once.ts, src/session/follow-records.ts
// The HTTP API through a spawned `fisk-ai serve` on the script provider: a run started and
// followed over SSE to its answer, a reconnect with Last-Event-ID, approvals decided once,
// Idempotency-Key, problem+json for each class of bad input, the client against /openapi.json.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { CLIENT_ROUTES, ClientError, type FiskClient, type SessionEvent } from "../src/client/fisk-client.js";
import { promisify } from "node:util";
import { thisUser } from "../src/session/this-user.js";
import { startPoolModel } from "./helpers/pool-model.js";
import { startCli } from "./helpers/cli-harness.js";
import { eventually } from "./helpers/eventually.js";
import { kinds, poolWorkspace, writePoolConfig, type PoolWorkspace } from "./helpers/pool-workspace.js";
import { serveProcessesUnder, startServe, type ServeProcess } from "./helpers/serve-process.js";

const root = mkdtempSync(join(tmpdir(), "fisk-ai-serve-"));
const servers = serveProcessesUnder(root);
let made = 0;

async function served(
  options: { gateOpen?: boolean; confirm?: boolean; toolSleep?: string } = {},
): Promise<{ ws: PoolWorkspace; server: ServeProcess; client: FiskClient }> {
  const ws = poolWorkspace(join(root, `ws-${++made}`), { gateOpen: options.gateOpen ?? true });
  if (options.toolSleep !== undefined) ws.env.TOOL_SLEEP = options.toolSleep;
  if (options.confirm === true) writePoolConfig(ws.dir, undefined, undefined, true);
  const server = await startServe((args) => startCli(args, { cwd: ws.dir, env: ws.env }));
  servers.push(server);
  return { ws, server, client: server.client };
}

/** The events of a stream until its end (or `until` holds), collected. */
async function collect(events: AsyncIterable<SessionEvent>, until: (seen: SessionEvent[]) => boolean = () => false): Promise<SessionEvent[]> {
  const seen: SessionEvent[] = [];
  for await (const event of events) {
    seen.push(event);
    if (event.kind === "end" || until(seen)) break;
  }
  return seen;
}

const seqs = (events: SessionEvent[]) => events.flatMap((event) => (event.kind === "record" ? [event.seq] : []));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

describe("fisk-ai serve", () => {
  it("a run started over HTTP is followed over SSE to its answer, every record once, in order", async () => {
    const { ws, client } = await served();
    const { runId, replayed } = await client.startRun({ agent: "agent", prompt: "write two notes", title: "two notes" });
    assert.equal(replayed, false);
    const events = await collect(client.events(runId));
    const last = events.at(-1);
    assert.equal(last?.kind, "end");
    assert.deepEqual(last, { kind: "end", status: "completed", lastSeq: ws.journal(runId).length });
    assert.deepEqual(seqs(events), range(1, ws.journal(runId).length));
    const terminal = events.at(-2);
    assert.ok(terminal?.kind === "record" && terminal.record.protocol.endsWith(".terminal"));
    assert.deepEqual(await client.wait(runId), { runId, done: true, reason: "completed", answer: "two notes written" });
    assert.deepEqual(ws.executions(), ["one", "two"]);
  });

  it("a client that reconnects with Last-Event-ID gets every later record once, while the run goes on", async () => {
    const { ws, client } = await served({ gateOpen: false });
    const { runId } = await client.startRun({ agent: "agent", prompt: "write two notes" });
    const stop = new AbortController();
    const first = await collect(client.events(runId, 0, stop.signal), (seen) => seen.length === 2);
    stop.abort();
    assert.deepEqual(seqs(first), [1, 2]);
    ws.openGate();
    const rest = await collect(client.events(runId, 2));
    assert.deepEqual(seqs(rest), range(3, ws.journal(runId).length));
    assert.equal(rest.at(-1)?.kind, "end");
    // A reconnect after the end gets nothing again but the end.
    assert.deepEqual(await collect(client.events(runId, ws.journal(runId).length)), [{ kind: "end", status: "completed", lastSeq: ws.journal(runId).length }]);
  });

  it("approvals: the inbox lists a parked call, it is decided once as the principal, a second decider gets a 409 naming who decided", async () => {
    const { ws, client } = await served({ confirm: true });
    const { runId } = await client.startRun({ agent: "agent", prompt: "write two notes" });
    assert.equal((await client.wait(runId)).reason, "awaiting_approval");
    const [call, ...others] = await client.approvals();
    assert.deepEqual(others, []);
    assert.equal(call?.runId, runId);
    assert.deepEqual(call?.input, { text: "one" });
    const decided = await client.decide(runId, call.toolUseId, { decision: "approve" });
    assert.deepEqual(
      decided.decided.map(({ decision, decided_by }) => ({ decision, decided_by })),
      [{ decision: "approve", decided_by: thisUser() }],
    );
    const again = await client.decide(runId, call.toolUseId, { decision: "deny", reason: "too late" }).catch((error: unknown) => error);
    assert.ok(again instanceof ClientError, String(again));
    assert.equal(again.status, 409);
    assert.equal(again.problem.code, "ERR_DECISION_REFUSED");
    assert.ok(again.problem.detail.includes(`already decided: approve by ${thisUser()}`), again.problem.detail);
    // The pool took the run on: it ran the approved call, once, and parked on the next.
    await eventually(async () => (await client.approvals()).some((waiting) => waiting.toolUseId !== call.toolUseId), "the second call to park");
    assert.deepEqual(ws.executions(), ["one"]);
    // Every call the session waits on, denied at once: the run goes on without running it.
    const denied = await client.decideAll(runId, { decision: "deny", reason: "one note is enough" });
    assert.deepEqual(
      denied.decided.map(({ decision, decided_by }) => [decision, decided_by]),
      [["deny", thisUser()]],
    );
    assert.equal((await client.wait(runId)).reason, "completed");
    assert.deepEqual(ws.executions(), ["one"]);
    const decisions = ws.journal(runId).filter((record) => "approval_decision" in record);
    assert.equal(decisions.length, 2);
  });

  it("suspend: the pool's worker suspends the run at its next boundary; it stays suspended until a follow-up; a run at rest or parked is refused", async () => {
    // Each tool takes a while after its gate opens: the worker hears the request (it looks every
    // 100 ms on files) long before the first tool ends, so the boundary after it is the one.
    const { ws, client } = await served({ gateOpen: false, toolSleep: "2" });
    const { runId } = await client.startRun({ agent: "agent", prompt: "write two notes" });
    await eventually(() => ws.executions().includes("one"), "the first tool to be under way");
    assert.deepEqual(await client.suspend(runId), { runId, replayed: false });
    ws.openGate();
    assert.equal((await client.wait(runId)).reason, "suspended");
    assert.deepEqual(ws.executions(), ["one"], "the second call was not made: the run stopped at the boundary after the first");
    assert.equal(kinds(ws.journal(runId)).at(-1), "terminal");
    await eventually(async () => (await client.queue()).length === 0, "the request to be settled");
    assert.equal((await client.session(runId)).session.status, "suspended");
    const [status, code] = await client.suspend(runId).then(
      () => [0, ""],
      (error: ClientError) => [error.status, error.problem.code],
    );
    assert.deepEqual([status, code], [404, "ERR_NOT_FOUND"], "nothing of it runs now");
    await client.followUp(runId, "go on");
    assert.equal((await client.wait(runId)).reason, "completed");
    assert.deepEqual(ws.executions(), ["one", "two"]);
  });

  it("text deltas: a follower sees the model's text as it streams, before the turn's record, with no id; a reconnect gets the record", async () => {
    const model = await startPoolModel();
    try {
      const ws = poolWorkspace(join(root, `ws-${++made}`), { model });
      const server = await startServe((args) => startCli(args, { cwd: ws.dir, env: ws.env }));
      servers.push(server);
      const { runId } = await server.client.startRun({ agent: "agent", prompt: "write two notes" });
      const events = await collect(server.client.events(runId));
      const deltas = events.flatMap((event) => (event.kind === "delta" ? [event.text] : []));
      assert.ok(deltas.length > 1, `the answer came in pieces: ${JSON.stringify(deltas)}`);
      assert.equal(deltas.join(""), "two notes written");
      const lastDelta = events.findLastIndex((event) => event.kind === "delta");
      const answer = events.findIndex((event) => event.kind === "record" && JSON.stringify(event.record).includes("two notes written"));
      assert.ok(lastDelta < answer, "the deltas came before the turn's record");
      assert.deepEqual(seqs(events), range(1, ws.journal(runId).length), "every record once, deltas beside them");
      const again = await collect(server.client.events(runId));
      assert.deepEqual(
        again.filter((event) => event.kind === "delta"),
        [],
        "a follower after the run gets the records alone",
      );
    } finally {
      await model.close();
    }
  });

  it("Idempotency-Key: the same key twice is the same session and one run; the same key with another prompt is a 422", async () => {
    const { ws, client } = await served();
    const first = await client.startRun({ agent: "agent", prompt: "write two notes" }, "order-17");
    const second = await client.startRun({ agent: "agent", prompt: "write two notes" }, "order-17");
    assert.deepEqual([first.replayed, second.replayed, second.runId], [false, true, first.runId]);
    const other = await client.startRun({ agent: "agent", prompt: "something else" }, "order-17").catch((error: unknown) => error);
    assert.ok(other instanceof ClientError);
    assert.deepEqual([other.status, other.problem.code], [422, "ERR_IDEMPOTENCY"]);
    assert.equal((await client.wait(first.runId)).reason, "completed");
    const journals = readdirSync(join(ws.dir, "state")).filter((name) => name.endsWith(".json"));
    assert.deepEqual(journals, [`${first.runId}.json`]);
    assert.deepEqual(ws.executions(), ["one", "two"]);
  });

  it("bad input of each class is a problem+json with fisk-ai's code, never a 5xx", async () => {
    const { server } = await served();
    const post = (path: string, body: string, type = "application/json") =>
      fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": type }, body });
    const cases: [string, Promise<Response>, number, string][] = [
      ["malformed JSON", post("/v1/runs", '{"agent": "agent", "prompt": '), 400, "ERR_BAD_REQUEST"],
      ["a wrong type", post("/v1/runs", '{"agent": "agent", "prompt": 7}'), 400, "ERR_BAD_REQUEST"],
      ["an unknown field", post("/v1/runs", '{"agent": "agent", "prompt": "hi", "admin": true}'), 400, "ERR_BAD_REQUEST"],
      ["not JSON at all", post("/v1/runs", "agent=agent", "text/plain"), 415, "ERR_UNSUPPORTED_MEDIA"],
      ["an unknown agent", post("/v1/runs", '{"agent": "nobody", "prompt": "hi"}'), 404, "ERR_NO_AGENT"],
      ["a body over the limit", post("/v1/runs", JSON.stringify({ agent: "agent", prompt: "x".repeat(1024 * 1024 + 1) })), 413, "ERR_TOO_LARGE"],
      ["an id with a slash", fetch(`${server.url}/v1/sessions/a%2F..%2Fb/events`), 400, "ERR_BAD_REQUEST"],
      ["an id of ..", fetch(`${server.url}/v1/sessions/..%2E/wait`), 400, "ERR_BAD_REQUEST"],
      ["an id with NUL", fetch(`${server.url}/v1/sessions/a%00b/events`), 400, "ERR_BAD_REQUEST"],
      ["an id of 10 KB", fetch(`${server.url}/v1/sessions/${"a".repeat(10_240)}/events`), 400, "ERR_BAD_REQUEST"],
      ["a session that does not exist", fetch(`${server.url}/v1/sessions/nosuchsession/events`), 404, "ERR_NOT_FOUND"],
      [
        "a Last-Event-ID that is not a seq",
        fetch(`${server.url}/v1/sessions/nosuchsession/events`, { headers: { "last-event-id": "../1" } }),
        400,
        "ERR_BAD_REQUEST",
      ],
      ["a decision of no kind", post("/v1/sessions/nosuchsession/calls/c1/decision", '{"decision": "maybe"}'), 400, "ERR_BAD_REQUEST"],
      ["no such route", fetch(`${server.url}/v1/nothing`), 404, "ERR_NO_ROUTE"],
    ];
    for (const [what, pending, status, code] of cases) {
      const response = await pending;
      assert.equal(response.status, status, what);
      assert.equal(response.headers.get("content-type"), "application/problem+json", what);
      const problem = (await response.json()) as { code: string; status: number; detail: string; type: string };
      assert.equal(problem.code, code, what);
      assert.equal(problem.status, status, what);
      assert.equal(problem.type, `urn:fisk-ai:error:${code}`, what);
      assert.ok(problem.detail.length > 0, what);
    }
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200, "the server still serves");
  });

  it("the client's routes are /openapi.json's, which documents a problem+json for each", async () => {
    const { server } = await served();
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
    };
    assert.equal(document.openapi, "3.1.0");
    for (const [name, { method, path }] of Object.entries(CLIENT_ROUTES)) {
      const operation = document.paths[path]?.[method];
      assert.ok(operation !== undefined, `${name}: ${method} ${path} is not in /openapi.json`);
      assert.ok(operation.responses["400"]?.content?.["application/problem+json"] !== undefined, `${name} documents its problems`);
    }
    assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
  });

  it("runs the README's lines (docs/server.md's): serve, a curl that starts a run, one that follows it, one that approves, one that waits", async () => {
    const repo = new URL("../../", import.meta.url).pathname;
    const block = /```sh\n(node dist\/cli\/main\.js serve [^`]*)```/.exec(readFileSync(join(repo, "docs/server.md"), "utf8"))?.[1] ?? "";
    const readme = readFileSync(join(repo, "README.md"), "utf8");
    assert.ok(readme.includes(block.replace(/^/gm, "  ").replace(/ {2}$/, "")), "the README shows the page's lines");
    const [serveLine, ...curls] = block.trim().split("\n");
    assert.equal(curls.length, 4, block);
    const dir = join(root, "readme");
    mkdirSync(dir);
    const env = { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
    // The page's serve line on a free port instead of 7474, its config from the repository.
    const args = (serveLine as string)
      .replace(/ &$/, "")
      .split(" ")
      .slice(2)
      .map((word) => (word.startsWith("examples/") ? join(repo, word) : word === "127.0.0.1:7474" ? "127.0.0.1:0" : word));
    const server = await startServe((words) => startCli(words, { cwd: dir, env }), args);
    servers.push(server);
    const port = new URL(server.url).port;
    const run = promisify(execFile);
    const outputs: string[] = [];
    for (const line of curls) outputs.push((await run("sh", ["-c", line.replaceAll("localhost:7474", `127.0.0.1:${port}`)], { cwd: dir, env })).stdout);
    const [started, followed, approved, waited] = outputs as [string, string, string, string];
    assert.deepEqual(JSON.parse(started), { runId: "release-2", replayed: false });
    assert.match(followed, /^event: record\ndata: \{"seq":1,/);
    assert.match(followed, /event: end\ndata: \{"status":"awaiting_approval","lastSeq":\d+\}\n\n$/);
    assert.deepEqual(
      (JSON.parse(approved) as { decided: { decision: string; decided_by: string }[] }).decided.map(({ decision, decided_by }) => [decision, decided_by]),
      [["approve", thisUser()]],
    );
    assert.deepEqual(JSON.parse(waited), { runId: "release-2", done: true, reason: "completed", answer: "Tagged v1.4.2." });
    assert.equal(readFileSync(join(dir, "releases.txt"), "utf8"), "1.4.2\n", "the approved call ran once");
  });
});
