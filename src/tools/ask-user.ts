// The built-in `ask_user` tool: the model asks the operator a question and gets the answer
// as the tool's result. The loop never runs it: it answers it, from a terminal when there is
// one, else by parking the run until someone answers (`fisk-ai session answer`).
import type { Tool } from "./tool.js";

/** The name the model calls it by. */
export const ASK_USER = "ask_user";

/**
 * A tool that lets the model ask the operator a question: `{ question }` in, the answer as
 * its result. Add it to a run's tools; the run's `askUser` callback answers it, and without
 * one a checkpointed run parks until `answer` journals an answer.
 */
export const askUserTool: Tool = {
  name: ASK_USER,
  description:
    "Ask the operator a question when you cannot go on without their answer (a choice, a missing fact, a permission). The answer may take a while to come. Ask one clear question.",
  input_schema: {
    type: "object",
    properties: { question: { type: "string", description: "The question, as the operator will read it." } },
    required: ["question"],
  },
  confirm: false,
  asksOperator: true,
  onCrash: "rerun",
  // Reached only by a program that runs tools itself: the agent loop answers this tool.
  run: async () => ({ content: "ask_user is answered by the operator, not run: no one could be asked", is_error: true }),
};

/** The question of an ask_user call, as the operator is shown it. */
export function questionOf(input: Record<string, unknown>): string {
  return typeof input.question === "string" ? input.question : JSON.stringify(input);
}
