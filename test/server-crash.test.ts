// covers: src/cli/serve/serve-command.ts, src/server/routes/events.ts, src/session/follow-records.ts
// The crash story of `fisk-ai serve`: a run started over HTTP, its server SIGKILLed while a
// client follows it mid-tool, a new server started on the same store. The client
// reconnects with Last-Event-ID and sees every record once, in order, and the answer; the
// tool that was running when the server died ran again at most once (its on_crash: rerun).
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "node:test";
import type { SessionEvent } from "../src/client/fisk-client.js";
import { startCli } from "./helpers/cli-harness.js";
import { eventually } from "./helpers/eventually.js";
import { poolWorkspace } from "./helpers/pool-workspace.js";
import { serveProcessesUnder, startServe } from "./helpers/serve-process.js";

const root = mkdtempSync(join(tmpdir(), "fisk-ai-serve-crash-"));
const servers = serveProcessesUnder(root);

it("SIGKILL the server while a client follows a run; a new server; the client reconnects and sees every record once and the answer", async () => {
  const ws = poolWorkspace(join(root, "ws"), { gateOpen: false });
  const serve = async () => {
    const server = await startServe((args) => startCli(args, { cwd: ws.dir, env: ws.env }));
    servers.push(server);
    return server;
  };
  const first = await serve();
  const { runId } = await first.client.startRun({ agent: "agent", prompt: "write two notes" });
  const seen: SessionEvent[] = [];
  // Caught at once: the stream breaks when the server dies, before the test looks.
  const following = (async () => {
    for await (const event of first.client.events(runId)) seen.push(event);
  })().then(
    () => "ended",
    (error: unknown) => error,
  );
  // The first tool runs (and waits at the gate): the client has every record before it.
  await eventually(() => ws.executions().length === 1 && seen.length >= 2, "the first tool to start and the client to see its call");
  first.run.child.kill("SIGKILL");
  await first.run.done;
  assert.ok((await following) instanceof Error, "the stream of a killed server breaks");
  const before = seen.map((event) => (event.kind === "record" ? event.seq : -1));
  assert.deepEqual(before, [1, 2], "the meta and the tool call, no more: the tool has not finished");

  const second = await serve();
  ws.openGate();
  const lastSeen = before.at(-1) as number;
  for await (const event of second.client.events(runId, lastSeen)) seen.push(event);
  const records = seen.flatMap((event) => (event.kind === "record" ? [event.seq] : []));
  const stored = ws.journal(runId);
  assert.deepEqual(
    records,
    Array.from({ length: stored.length }, (_, index) => index + 1),
    "every record once, in order",
  );
  assert.deepEqual(seen.at(-1), { kind: "end", status: "completed", lastSeq: stored.length });
  assert.deepEqual(await second.client.wait(runId), { runId, done: true, reason: "completed", answer: "two notes written" });
  const ones = ws.executions().filter((line) => line === "one").length;
  assert.ok(ones >= 1 && ones <= 2, `the interrupted tool ran ${ones} times: at most once more than asked (on_crash: rerun)`);
  assert.equal(ws.executions().filter((line) => line === "two").length, 1);
});
