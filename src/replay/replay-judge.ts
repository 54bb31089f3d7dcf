// The judge of a replay (docs/replay.md, judged): a model asked whether the new agent's final
// answer satisfies the same request as the recorded one. Its verdict is reported beside the
// exact comparison and never changes it; its calls are priced and counted like the replay's.
import { AGENT_DEFAULTS } from "../agent/defaults.js";
import { answerText } from "../agent/agent-loop.js";
import type { PriceTable } from "../ledger/prices.js";
import { callWithRetries } from "../llm/call-with-retries.js";
import type { ModelProvider } from "../llm/model-provider.js";
import type { JudgeVerdict } from "./replay-report.js";
import { addCall, noUsage } from "./replay-usage.js";

/** The model that judges: what an agent.yaml gives of one (loadAgent's `options`), or a program's own. */
export interface ReplayJudge {
  /** The judge's model API. */
  provider: ModelProvider;
  /** The judge's model, as the provider knows it. */
  model: string;
}

/** What the judge is told: it answers with PASS or FAIL on its first line, then why. */
export const JUDGE_SYSTEM =
  "You compare two answers an assistant gave to the same request: the recorded one, and a new one. Decide whether the new answer satisfies the request as well as the recorded one does; wording, order and style do not matter, what the answer says does. Reply with PASS or FAIL alone on the first line, then one line saying why.";

/** The request as the user made it, and the two final answers to it. */
export interface JudgedAnswers {
  request: string;
  recorded: string;
  replayed: string;
}

/** Asks the judge about one session's answers. A judge whose call fails gives an `unclear` verdict saying so. */
export async function judgeAnswers(judge: ReplayJudge, answers: JudgedAnswers, prices: PriceTable, signal?: AbortSignal): Promise<JudgeVerdict> {
  const usage = noUsage(judge.model);
  const request = {
    model: judge.model,
    system: JUDGE_SYSTEM,
    messages: [{ role: "user" as const, content: [{ type: "text" as const, text: judgeQuestion(answers) }] }],
    tools: [],
    maxOutputTokens: 512,
    thinking: { mode: "off" as const },
  };
  const policy = { attempts: AGENT_DEFAULTS.retryAttempts, baseDelayMs: AGENT_DEFAULTS.retryBaseDelayMs, timeoutMs: AGENT_DEFAULTS.callTimeoutMs };
  const started = performance.now();
  let text: string;
  try {
    const turn = await callWithRetries(judge.provider, request, policy, { signal: signal ?? new AbortController().signal });
    addCall(usage, turn.usage, performance.now() - started, prices);
    text = answerText(turn.message).trim();
  } catch (error) {
    return { verdict: "unclear", reason: `the judge's call failed: ${error instanceof Error ? error.message : String(error)}`, usage };
  }
  const [first = "", ...rest] = text.split("\n");
  const word = first.trim().toUpperCase();
  const verdict = word.startsWith("PASS") ? "pass" : word.startsWith("FAIL") ? "fail" : "unclear";
  const reason = (verdict === "unclear" ? text : rest.join(" ").trim() || first.trim().slice(4).trim()).replace(/\s+/g, " ");
  return { verdict, reason, usage };
}

function judgeQuestion({ request, recorded, replayed }: JudgedAnswers): string {
  return `<request>\n${request}\n</request>\n\n<recorded_answer>\n${recorded}\n</recorded_answer>\n\n<new_answer>\n${replayed}\n</new_answer>`;
}
