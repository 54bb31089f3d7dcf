// covers: src/llm/call-with-retries.ts, src/llm/model-provider.ts
// process: shared
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { callWithRetries } from "../src/llm/call-with-retries.js";
import { ModelCallError, type ModelProvider, type ModelRequest, type ModelTurn } from "../src/llm/model-provider.js";

const request: ModelRequest = { model: "m", system: "", messages: [], tools: [], maxOutputTokens: 10, thinking: { mode: "off" } };
const turn: ModelTurn = {
  message: { role: "assistant", content: [{ type: "text", text: "ok" }] },
  stop_reason: "end_turn",
  usage: { in_tokens: 1, out_tokens: 1 },
};

/** A provider whose call k does what `behaviour(k, signal)` says. */
function provider(behaviour: (call: number, signal: AbortSignal) => Promise<ModelTurn>): ModelProvider & { calls: number } {
  const counted = {
    name: "script" as const,
    calls: 0,
    complete: (_request: ModelRequest, signal: AbortSignal) => behaviour(++counted.calls, signal),
  };
  return counted;
}

/** Never answers; rejects when its signal aborts, as the SDKs do. */
function hang(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
}

describe("callWithRetries", () => {
  it("times out a call that does not answer, and retries it", async () => {
    const slowOnce = provider((call, signal) => (call === 1 ? hang(signal) : Promise.resolve(turn)));
    const retries: string[] = [];
    const result = await callWithRetries(
      slowOnce,
      request,
      { attempts: 3, baseDelayMs: 1, timeoutMs: 50 },
      {
        signal: new AbortController().signal,
        onRetry: (_attempt, _delay, error) => retries.push(error.message),
      },
    );
    assert.equal(result, turn);
    assert.deepEqual(retries, ["the model call timed out after 0.05s"]);
  });

  it("gives up after the last attempt with the last error", async () => {
    const down = provider(() => Promise.reject(new ModelCallError("API 529 overloaded_error", { retryable: true, status: 529 })));
    await assert.rejects(
      callWithRetries(down, request, { attempts: 3, baseDelayMs: 1, timeoutMs: 1000 }, { signal: new AbortController().signal }),
      /API 529 overloaded_error/,
    );
    assert.equal(down.calls, 3);
  });

  it("does not retry what cannot pass, nor after the run is aborted", async () => {
    const refused = provider(() => Promise.reject(new ModelCallError("API 400", { retryable: false, status: 400 })));
    await assert.rejects(
      callWithRetries(refused, request, { attempts: 5, baseDelayMs: 1, timeoutMs: 1000 }, { signal: new AbortController().signal }),
      /API 400/,
    );
    assert.equal(refused.calls, 1);

    const controller = new AbortController();
    const hanging = provider((_call, signal) => hang(signal));
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(callWithRetries(hanging, request, { attempts: 5, baseDelayMs: 1, timeoutMs: 10_000 }, { signal: controller.signal }));
    assert.equal(hanging.calls, 1, "an abort is not a reason to try again");
  });

  it("waits longer between each attempt", async () => {
    const delays: number[] = [];
    const down = provider(() => Promise.reject(new ModelCallError("API 500", { retryable: true, status: 500 })));
    await assert.rejects(
      callWithRetries(
        down,
        request,
        { attempts: 4, baseDelayMs: 20, timeoutMs: 1000 },
        { signal: new AbortController().signal, onRetry: (_attempt, delay) => delays.push(delay) },
      ),
    );
    assert.equal(delays.length, 3);
    delays.forEach((delay, index) => {
      assert.ok(delay >= 10 * 2 ** index && delay <= 20 * 2 ** index, `delay ${index}: ${delay} ms`);
    });
  });
});
