// covers: src/cli/serve/serve-timeouts.ts
// Slow and hostile clients of a spawned `fisk-ai serve` (its timeouts shortened by
// --headers-timeout and --request-timeout): raw connections that send their headers, or
// their body, one byte a second are answered 408 and closed before they finish, while
// another client is served and a stream opened before them stays open past the request
// timeout; a body cut off journals nothing. (The cap of streams, a 503 past it, is
// test/server-sessions.test.ts's.)
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runCli, startCli } from "./helpers/cli-harness.js";
import { poolWorkspace, type PoolWorkspace } from "./helpers/pool-workspace.js";
import { startServe, type ServeProcess } from "./helpers/serve-process.js";

const HEADERS_TIMEOUT_MS = 2000;
const REQUEST_TIMEOUT_MS = 4000;
const root = mkdtempSync(join(tmpdir(), "fisk-ai-serve-slow-"));
let ws: PoolWorkspace;
let server: ServeProcess;

before(async () => {
  ws = poolWorkspace(join(root, "ws"));
  const args = ["serve", "--listen", "127.0.0.1:0", "--workers", "0"];
  server = await startServe(
    (cli) => startCli(cli, { cwd: ws.dir, env: ws.env }),
    [...args, "--headers-timeout", String(HEADERS_TIMEOUT_MS), "--request-timeout", String(REQUEST_TIMEOUT_MS)],
  );
});

after(async () => {
  server.run.child.kill("SIGKILL");
  await server.run.done;
  rmSync(root, { recursive: true, force: true });
});

interface Trickle {
  /** Whether the server has not closed it yet. */
  open(): boolean;
  /** Once the server closed it: what it answered, and how many of the request's bytes were sent. */
  closed: Promise<{ answer: string; sent: number }>;
}

/** A raw connection that sends `request`'s first `atOnce` bytes, then one byte a second until it is all sent or the server closes it. */
function trickle(request: string, atOnce: number): Trickle {
  const socket = connect(Number(new URL(server.url).port), "127.0.0.1");
  let sent = 0;
  let answer = "";
  let open = true;
  let sending: NodeJS.Timeout | undefined;
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    answer += chunk;
  });
  socket.on("error", () => undefined);
  socket.on("connect", () => {
    socket.write(request.slice(0, atOnce));
    sent = atOnce;
    sending = setInterval(() => {
      if (sent < request.length && socket.writable) socket.write(request.charAt(sent++));
    }, 1000);
  });
  const closed = new Promise<{ answer: string; sent: number }>((resolve) => {
    socket.on("close", () => {
      open = false;
      clearInterval(sending);
      resolve({ answer, sent });
    });
  });
  return { open: () => open, closed };
}

/** `count` trickles of `request`, another client served while every one of them is open, then each one's end. */
async function servedBeside(request: string, atOnce: number, count: number): Promise<{ answer: string; sent: number }[]> {
  const trickles = Array.from({ length: count }, () => trickle(request, atOnce));
  for (let round = 0; round < 3; round++) {
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    assert.deepEqual(
      (await server.client.agents()).map((agent) => agent.name),
      ["agent"],
    );
  }
  assert.deepEqual(
    trickles.map((one) => one.open()),
    trickles.map(() => true),
    "the other client was served while every slow one was still open",
  );
  return Promise.all(trickles.map((one) => one.closed));
}

describe("fisk-ai serve and slow clients", () => {
  it("a client sending its headers a byte a second is answered 408 and closed before it finishes; another is served meanwhile", async () => {
    const request = `GET /v1/agents HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\nAccept: application/json\r\n\r\n`;
    const ends = await servedBeside(request, 1, 20);
    for (const { answer, sent } of ends) {
      assert.match(answer, /^HTTP\/1\.1 408 Request Timeout\r\n/);
      assert.ok(sent < request.length, `cut off after ${sent} of ${request.length} bytes`);
    }
  });

  it("a client sending its body a byte a second is answered 408 and closed, journals nothing, and a stream open longer than the timeout goes on", async () => {
    const stop = new AbortController();
    const stream = server.client.storeEvents(stop.signal);
    assert.deepEqual((await stream.next()).value, { kind: "snapshot", entries: [] });
    const body = JSON.stringify({ agent: "agent", prompt: "write two notes", name: "slow-body" });
    const head = `POST /v1/runs HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const ends = await servedBeside(head + body, head.length + 1, 5);
    for (const { answer, sent } of ends) {
      assert.match(answer, /^HTTP\/1\.1 408 Request Timeout\r\n/);
      assert.ok(sent < head.length + body.length, `cut off after ${sent - head.length} of the body's ${body.length} bytes`);
    }
    assert.equal(server.run.stderr(), "", "no error of the server logged");
    assert.deepEqual(await server.client.sessions(), { sessions: [] });
    assert.equal(ws.queued().length, 0);
    // The stream outlived the request timeout: it tells of a run started now.
    const { runId } = await server.client.startRun({ agent: "agent", prompt: "write two notes" });
    const next = (await stream.next()).value;
    assert.ok(next?.kind === "queued" && next.entry.runId === runId, JSON.stringify(next));
    stop.abort();
    await stream.return(undefined).catch(() => undefined);
  });

  it("a timeout that is not a whole number of milliseconds, or headers given longer than the whole request, is a usage error", async () => {
    const refused = [
      [["--headers-timeout", "1.5"], /--headers-timeout takes milliseconds, a whole number from 1, not "1.5"/],
      [["--request-timeout", "0"], /--request-timeout takes milliseconds, a whole number from 1, not "0"/],
      [["--headers-timeout", "5000", "--request-timeout", "4000"], /--headers-timeout 5000 is longer than --request-timeout 4000/],
    ] as const;
    for (const [flags, message] of refused) {
      const result = await runCli(["serve", "--listen", "127.0.0.1:0", "--workers", "0", ...flags], { cwd: ws.dir, env: ws.env });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
    }
  });
});
