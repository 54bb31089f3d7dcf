// covers: src/server/create-server.ts, src/server/schemas.ts, src/server/problem.ts, src/server/routes/route.ts
// Every route of /openapi.json driven with generated requests (fast-check): ids valid,
// random and hostile, queries and bodies valid, random and malformed, through createServer's
// fetch handler over a memory store. No answer is a 5xx, every status is one the document
// gives for that route, and every error is a problem+json with a code.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import fc from "fast-check";
import { openMemoryBackend } from "../src/backends/memory/memory-backend.js";
import { loadAgent, type LoadedAgent } from "../src/config/load-agent.js";
import type { RunQueue } from "../src/queue/run-queue.js";
import { createServer, type FiskServer } from "../src/server/create-server.js";

const dir = mkdtempSync(join(tmpdir(), "fisk-ai-serve-fuzz-"));
let agent: LoadedAgent;
let api: FiskServer;
let existing: string;

type Operation = { path: string; method: string; statuses: string[] };

before(async () => {
  writeFileSync(join(dir, "hello.yaml"), "provider: script\nmodel: script-test\nscript: ./hello.script.yaml\nsystem: You say hello.\n");
  writeFileSync(join(dir, "hello.script.yaml"), 'turns:\n  - text: "hello there"\n');
  agent = await loadAgent(join(dir, "hello.yaml"), { env: { HOME: dir } });
  const { store, queue } = openMemoryBackend();
  api = createServer({ store, queue: queue as RunQueue, agents: [{ name: "hello", spec: agent.spec }], env: { HOME: dir }, cwd: dir });
  const started = await api.fetch(
    new Request("http://fuzz/v1/runs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent: "hello", prompt: "hi" }),
    }),
  );
  existing = ((await started.json()) as { runId: string }).runId;
});

after(async () => {
  await agent.close();
  rmSync(dir, { recursive: true, force: true });
});

/** How long a generated client waits for an answer before it leaves. */
const LEAVES_AFTER_MS = 500;

const HOSTILE = ["..", "a/b", "../../etc/passwd", "a\u0000b", "x".repeat(10_240), "%", "é", " ", ""];

it("every route of /openapi.json, driven with generated requests, answers no 5xx and only statuses the document gives", async () => {
  const document = api.document() as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  const operations: Operation[] = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, statuses: Object.keys(operation.responses) })),
  );
  assert.ok(operations.length >= 20, `the document has ${operations.length} operations`);
  const id = fc.oneof(fc.constant(existing), fc.constantFrom(...HOSTILE), fc.string(), fc.stringMatching(/^[a-zA-Z0-9][\w-]{0,30}$/));
  const query = fc.dictionary(
    fc.constantFrom("after", "before", "limit", "timeout", "status", "q", "cursor", "name", "since", "agent"),
    fc.oneof(fc.string(), fc.nat({ max: 200 }).map(String), fc.nat().map(String)),
  );
  const body = fc.oneof(
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.string(),
    fc.constant('{"agent": "hello", "prompt": '),
    fc.record({ agent: fc.constantFrom("hello", "nobody"), prompt: fc.string(), title: fc.string() }).map((value) => JSON.stringify(value)),
    fc
      .record({ decision: fc.constantFrom("approve", "deny", "answer", "maybe"), reason: fc.string(), answer: fc.string() })
      .map((value) => JSON.stringify(value)),
    fc.record({ at: fc.integer(), title: fc.string(), prompt: fc.string(), ifRunning: fc.string() }).map((value) => JSON.stringify(value)),
  );
  const headers = fc.record({ "last-event-id": fc.oneof(fc.string(), fc.nat().map(String)), "idempotency-key": fc.string() }, { requiredKeys: [] });
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...operations), id, id, query, body, headers, async (operation, first, second, search, payload, extra) => {
      const path = operation.path
        .replace("{id}", encodeURIComponent(first))
        .replace("{callId}", encodeURIComponent(second))
        .replace("{name}", encodeURIComponent(second));
      const url = new URL(`http://fuzz${path}`);
      for (const [key, value] of Object.entries(search)) url.searchParams.set(key, value);
      // A header value fetch refuses to send (a control character) is no request a client can make.
      const sent = Object.fromEntries(Object.entries(extra).filter(([, value]) => /^[\x20-\x7e]*$/.test(value)));
      const stop = new AbortController();
      const request = new Request(url, {
        method: operation.method.toUpperCase(),
        headers: { "content-type": "application/json", ...sent },
        signal: stop.signal,
        ...(operation.method === "get" || operation.method === "delete" ? {} : { body: payload }),
      });
      // A client that leaves a long poll (GET .../wait on a run no worker takes holds up to its
      // fuzzed timeout) after a moment: the route answers done: false at once, as a client gone would get.
      const leaving = setTimeout(() => stop.abort(), LEAVES_AFTER_MS);
      const response = await api.fetch(request).finally(() => clearTimeout(leaving));
      const what = `${operation.method} ${url.pathname}${url.search} -> ${response.status}`;
      if (response.headers.get("content-type")?.startsWith("text/event-stream") === true) {
        stop.abort();
        await response.body?.cancel();
      }
      assert.ok(response.status < 500, what);
      assert.ok(operation.statuses.includes(String(response.status)), `${what}: not in the document`);
      if (response.status >= 400) {
        assert.equal(response.headers.get("content-type"), "application/problem+json", what);
        const problem = (await response.json()) as { code?: string; status?: number };
        assert.equal(problem.status, response.status, what);
        assert.match(problem.code ?? "", /^ERR_[A-Z_]+$/, what);
      } else await response.body?.cancel();
    }),
    { numRuns: 400 },
  );
});
