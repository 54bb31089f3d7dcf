// Recorded sessions as tests in your own runner (docs/replay.md): a session is recorded once,
// then replayed against the agent as it is and against a changed one. The replay answers
// every tool call from the recording, so `send_mail` never runs again.
// Run (after npm run build:test): node --test .test-build/examples/library/replay-test.js
import assert from "node:assert/strict";
import { test } from "node:test";
import { defineTool, MemoryStore, replaySession, runAgent, ScriptProvider, type ReplayAgent } from "fisk-ai";
import * as z from "zod";

let mailsSent = 0;
const tools = [
  defineTool({ name: "find_order", description: "Find an order", input: z.object({ id: z.string() }), run: ({ id }) => `order ${id}: shipped` }),
  defineTool({
    name: "send_mail",
    description: "Mail the customer",
    input: z.object({ to: z.string(), body: z.string() }),
    run: () => {
      mailsSent++;
      return "sent";
    },
  }),
];

/** The agent under test: here a script plays the model; in your tests, your provider and model. */
function agent(secondCall: { name: string; input: Record<string, unknown> }): ReplayAgent {
  const turns = [
    { text: "Looking it up.", tool_calls: [{ name: "find_order", input: { id: "A-17" } }] },
    { text: "Telling the customer.", tool_calls: [secondCall] },
    { text: "Order A-17 has shipped; the customer knows." },
  ];
  return { provider: new ScriptProvider({ turns }), model: "script-demo", tools };
}

const mail = { name: "send_mail", input: { to: "ann@example.com", body: "A-17 shipped" } };
const store = new MemoryStore();
const recorded = await runAgent({ ...agent(mail), store, prompt: "Where is order A-17? Tell the customer." });

test("the agent as it is replays its recording as same", async () => {
  const report = await replaySession({ store, runId: recorded.runId }, agent(mail));
  assert.equal(report.result, "same");
  assert.equal(mailsSent, 1, "only the recording sent mail");
});

test("a changed agent that mails someone else departs at turn 2", async () => {
  const report = await replaySession({ store, runId: recorded.runId }, agent({ ...mail, input: { ...mail.input, to: "bob@example.com" } }));
  assert.equal(report.result, "departs");
  assert.equal(report.turn, 2);
  assert.deepEqual(
    report.departures.map((departure) => departure.kind),
    ["call-not-recorded", "recorded-call-not-made"],
  );
  assert.equal(mailsSent, 1, "the departing call was never run");
});
