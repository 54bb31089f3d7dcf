// covers: src/server/server-metrics.ts, src/server/routes/metrics.ts
// GET /metrics of createServer mounted in this process over a file store, with an
// in-process worker whose events the server counts: after runs that completed, parked,
// wait queued (an agent no worker drives) and run (a tool held at a gate), a scrape gives
// those counts, the queue's depth, the event streams open and request latency by route
// pattern; no label holds a tenant or a session id; a read key is refused (403); and each
// server has a registry of its own, prom-client's global one untouched.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { serve, type ServerType } from "@hono/node-server";
import { register } from "prom-client";
import { poolBackend } from "../src/backends/pool-queue.js";
import { FiskClient } from "../src/client/fisk-client.js";
import { loadAgent, type LoadedAgent } from "../src/config/load-agent.js";
import { Worker } from "../src/pool/worker.js";
import type { RunQueue } from "../src/queue/run-queue.js";
import type { Store } from "../src/runstate/store/store.js";
import { createServer, type FiskServer } from "../src/server/create-server.js";
import type { Authenticate, Principal } from "../src/server/principal.js";
import { refusal } from "./helpers/client-refusal.js";
import { eventually } from "./helpers/eventually.js";

const TENANT = "acme-tenant-7";
const dir = mkdtempSync(join(tmpdir(), "fisk-ai-serve-metrics-"));
const gate = join(dir, "gate");
const env = { PATH: process.env.PATH, HOME: dir, NO_COLOR: "1" };
const agents: LoadedAgent[] = [];
let store: Store;
let queue: RunQueue;
const listening: ServerType[] = [];
let worker: Worker | undefined;
let working: Promise<void> | undefined;

const principal = (name: string, roles: Principal["roles"]): Authenticate => {
  return async () => ({ name, tenant: TENANT, roles });
};
const admin = principal("ops", new Set(["read", "run", "admin"]));

/** Agent `name` of the script provider: `turns` its script, `tool` a note tool (held at the gate, or needing approval). */
function writeAgent(name: string, turns: string, tool?: { confirm: boolean }): void {
  const tools =
    tool === undefined
      ? ""
      : `tools:\n  - name: note\n    description: Waits for the gate\n    command: [sh, -c, 'while [ ! -e ${gate} ]; do sleep 0.02; done; echo noted']\n    input_schema: { type: object }\n    confirm: ${tool.confirm}\n`;
  writeFileSync(
    join(dir, `${name}.yaml`),
    `provider: script\nmodel: script-test\nscript: ./${name}.script.yaml\nsystem: You are ${name}.\n${tools}session: { state_dir: ./state }\n`,
  );
  writeFileSync(join(dir, `${name}.script.yaml`), `turns:\n${turns}`);
}

async function mounted(authenticate: Authenticate): Promise<{ api: FiskServer; client: FiskClient }> {
  const api = createServer({
    store,
    queue,
    agents: agents.map((agent, index) => ({ name: ["hello", "careful", "held", "idle"][index] as string, spec: agent.spec })),
    authenticate,
    env,
    cwd: dir,
  });
  const server = await new Promise<ServerType>((resolve) => {
    const started: ServerType = serve({ fetch: api.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(started));
  });
  listening.push(server);
  return { api, client: new FiskClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`) };
}

before(async () => {
  writeAgent("hello", '  - text: "hello there"\n');
  writeAgent("careful", "  - tool_calls: [{ name: note, input: {} }]\n  - text: done\n", { confirm: true });
  writeAgent("held", "  - tool_calls: [{ name: note, input: {} }]\n  - text: done\n", { confirm: false });
  writeAgent("idle", '  - text: "never driven"\n');
  for (const name of ["hello", "careful", "held", "idle"]) agents.push(await loadAgent(join(dir, `${name}.yaml`), { env }));
  ({ store, queue } = await poolBackend((agents[0] as LoadedAgent).openBackend()));
});

after(async () => {
  writeFileSync(gate, "");
  for (const server of listening) {
    server.close();
    if ("closeAllConnections" in server) server.closeAllConnections();
  }
  worker?.stop();
  await working;
  await queue.close();
  await store.close();
  for (const agent of agents) await agent.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The samples of a scrape: each line's name, its labels and its value. */
function samples(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  return text
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
      assert.ok(match !== null, `a sample line: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, value]) => [key, value]));
      return { name: match[1] as string, labels, value: Number(match[3]) };
    });
}

function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  return samples(text).find((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))?.value;
}

describe("GET /metrics", () => {
  it("counts runs by state, the queue's depth, runs settled, streams open and requests by route pattern, with no tenant or session in a label", async () => {
    const { api, client } = await mounted(admin);
    // The worker drives every agent but idle, whose runs wait queued.
    worker = new Worker({ store, queue, agents: agents.slice(0, 3).map((agent) => agent.spec), concurrency: 2, pollMs: 20, events: api.workerEvents() });
    working = worker.run();
    const completed = (await client.startRun({ agent: "hello", prompt: "say hello" })).runId;
    assert.equal((await client.wait(completed)).reason, "completed");
    const parked = (await client.startRun({ agent: "careful", prompt: "take a note" })).runId;
    assert.equal((await client.wait(parked)).reason, "awaiting_approval");
    const queued = (await client.startRun({ agent: "idle", prompt: "wait" })).runId;
    const held = (await client.startRun({ agent: "held", prompt: "take a note" })).runId;
    await eventually(async () => (await client.queue()).some((item) => item.runId === held && item.state === "running"), "the held run to be running");
    const stop = new AbortController();
    const stream = client.storeEvents(stop.signal);
    assert.equal((await stream.next()).value?.kind, "snapshot");
    assert.deepEqual(await refusal(client.session("no-such-session-9f3")), [404, "ERR_NOT_FOUND"]);

    const text = await client.metrics();
    assert.equal(sampleValue(text, "fisk_runs", { state: "queued" }), 1, text);
    assert.equal(sampleValue(text, "fisk_runs", { state: "running" }), 1);
    assert.equal(sampleValue(text, "fisk_runs", { state: "parked" }), 1);
    assert.equal(sampleValue(text, "fisk_queue_depth"), 1);
    assert.equal(sampleValue(text, "fisk_runs_settled_total", { outcome: "completed" }), 1);
    assert.equal(sampleValue(text, "fisk_runs_settled_total", { outcome: "parked" }), 1);
    assert.equal(sampleValue(text, "fisk_sse_clients"), 1);
    const requests = "fisk_http_request_duration_seconds_count";
    assert.equal(sampleValue(text, requests, { method: "POST", route: "/v1/runs", status: "2xx" }), 4);
    assert.equal(sampleValue(text, requests, { method: "GET", route: "/v1/sessions/:id/wait", status: "2xx" }), 2);
    assert.equal(sampleValue(text, requests, { method: "GET", route: "/v1/sessions/:id", status: "4xx" }), 1);
    assert.equal(sampleValue(text, requests, { method: "GET", route: "/v1/events", status: "2xx" }), 1);
    const ids = [completed, parked, queued, held, "no-such-session-9f3", TENANT];
    for (const sample of samples(text)) {
      for (const value of Object.values(sample.labels)) assert.ok(!ids.some((id) => value.includes(id)), `${sample.name} labelled ${value}`);
    }

    stop.abort();
    await stream.return(undefined).catch(() => undefined);
    writeFileSync(gate, "");
    assert.equal((await client.wait(held)).reason, "completed");
    await eventually(async () => sampleValue(await client.metrics(), "fisk_sse_clients") === 0, "the stream's slot to be given back");
    const later = await client.metrics();
    assert.equal(sampleValue(later, "fisk_runs", { state: "running" }), 0);
    assert.equal(sampleValue(later, "fisk_runs_settled_total", { outcome: "completed" }), 2);
    assert.equal(sampleValue(later, requests, { method: "GET", route: "/metrics", status: "2xx" }) !== undefined, true);
  });

  it("is an admin's: a read key is refused (403), no key at all is a 401; the route is in /openapi.json", async () => {
    const { api, client: reader } = await mounted(principal("viewer", new Set(["read"])));
    assert.deepEqual(await refusal(reader.metrics()), [403, "ERR_FORBIDDEN"]);
    assert.deepEqual(await refusal((await mounted(async () => undefined)).client.metrics()), [401, "ERR_UNAUTHENTICATED"]);
    const document = api.document() as { paths: Record<string, Record<string, { description?: string }>> };
    assert.match(document.paths["/metrics"]?.get?.description ?? "", /Needs the `admin` role/);
  });

  it("each server has a registry of its own: another server's requests are not in it, and prom-client's global one stays empty", async () => {
    const { client: first } = await mounted(admin);
    const { client: second } = await mounted(admin);
    await first.agents();
    await first.agents();
    await second.agents();
    const requests = "fisk_http_request_duration_seconds_count";
    const agentsRoute = { method: "GET", route: "/v1/agents", status: "2xx" };
    assert.equal(sampleValue(await first.metrics(), requests, agentsRoute), 2);
    assert.equal(sampleValue(await second.metrics(), requests, agentsRoute), 1);
    assert.deepEqual(await register.getMetricsAsJSON(), []);
  });
});
