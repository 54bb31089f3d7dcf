// covers: src/cli/serve/serve-command.ts, src/server/routes/events.ts, src/session/follow-records.ts
// The crash story of `fisk-ai serve` on a real nats-server with two serve processes: a run
// started over HTTP on the first, followed there over SSE; the first SIGKILLed mid-tool; the
// second takes the run over once the lease runs out, and the client, reconnected to the
// second with Last-Event-ID, sees every record once, in order, and the answer.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { SessionEvent } from "../src/client/fisk-client.js";
import { initRunStream } from "../src/backends/jetstream/run-stream.js";
import { startCli } from "./helpers/cli-harness.js";
import { eventually } from "./helpers/eventually.js";
import { startNatsServer, type NatsServer } from "./helpers/nats-server.js";
import { poolWorkspace } from "./helpers/pool-workspace.js";
import { skipWithout } from "./helpers/programs.js";
import { startServe, type ServeProcess } from "./helpers/serve-process.js";
import { sharedKeyring } from "./helpers/signing-keys.js";

/** The lease of the stream: short, so the takeover comes soon after the kill. */
const LEASE_MS = 1500;

const root = mkdtempSync(join(tmpdir(), "fisk-ai-serve-js-"));
// Removed at the file's end, not in the suite's after: a suite skipped for want of a program runs no hook.
after(() => rmSync(root, { recursive: true, force: true }));

describe("fisk-ai serve on NATS JetStream", { skip: skipWithout("nats-server") }, () => {
  let nats: NatsServer;
  const servers: ServeProcess[] = [];
  before(async () => {
    nats = await startNatsServer();
  });
  after(async () => {
    for (const server of servers) {
      server.run.child.kill("SIGKILL");
      await server.run.done;
    }
    await nats.stop();
  });

  it("two serve processes, the one running a followed run SIGKILLed: the other takes it over, the client reconnects there and sees every record once and the answer", async () => {
    await initRunStream({ backend: "jetstream", servers: nats.url, stream: "SERVE", prefix: "serve.runs", leaseTtlMs: LEASE_MS });
    const ws = poolWorkspace(join(root, "ws"), { gateOpen: false });
    // The store is shared: metas and decisions are signed with a keyring both servers have.
    const env = { ...ws.env, FISK_AI_SIGNING_KEYS: sharedKeyring(ws.dir) };
    const serve = async () => {
      const server = await startServe(
        (args) => startCli(args, { cwd: ws.dir, env }),
        ["serve", "--listen", "127.0.0.1:0", "--workers", "1", "--store", `${nats.url}/SERVE`],
      );
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
    await eventually(() => ws.executions().length === 1 && seen.length >= 2, "the first server's tool to start and the client to see its call");
    // Started only now, so the first server's worker is the one that took the run.
    const second = await serve();
    first.run.child.kill("SIGKILL");
    await first.run.done;
    assert.ok((await following) instanceof Error, "the stream of a killed server breaks");
    const lastSeen = (seen.at(-1) as SessionEvent & { kind: "record" }).seq;
    ws.openGate();
    for await (const event of second.client.events(runId, lastSeen)) seen.push(event);
    const records = seen.flatMap((event) => (event.kind === "record" ? [event.seq] : []));
    const end = seen.at(-1);
    assert.ok(end?.kind === "end", "the stream ends");
    assert.equal(end.status, "completed");
    assert.deepEqual(
      records,
      Array.from({ length: end.lastSeq }, (_, index) => index + 1),
      "every record once, in order",
    );
    assert.deepEqual(await second.client.wait(runId), { runId, done: true, reason: "completed", answer: "two notes written" });
    assert.deepEqual(ws.executions(), ["one", "one", "two"], "only the call cut by the kill ran again");
  });
});
