// Asks y/N on the terminal about one tool call: before a `confirm` tool runs, and on
// resume before an `on_crash: ask` call that was cut short runs again. Where there is no
// terminal to ask on, the answer is no: a call that needs a person never runs without one.
import { createInterface } from "node:readline/promises";
import { denyWithoutTerminal, type ConfirmToolCall } from "../tools/tool-set.js";
import type { Tool } from "../tools/tool.js";

export function terminalConfirm(stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream): ConfirmToolCall {
  return terminalQuestion(stdin, stderr, (tool, input) => `Run ${tool.name} ${JSON.stringify(input)}? [y/N] `);
}

export function terminalAskRerun(stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream): ConfirmToolCall {
  return terminalQuestion(
    stdin,
    stderr,
    (tool, input) => `${tool.name} ${JSON.stringify(input)} may have been running when the run was interrupted. Run it again? (no: the model is told its effect is unknown) [y/N] `,
  );
}

function terminalQuestion(stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream, question: (tool: Tool, input: Record<string, unknown>) => string): ConfirmToolCall {
  if (!stdin.isTTY || !stderr.isTTY) return denyWithoutTerminal;
  return async (tool, input) => {
    const prompt = createInterface({ input: stdin, output: stderr });
    const interrupted = new AbortController();
    // A prompt puts the terminal in raw mode, where Ctrl-C reaches readline and not the
    // process: it answers no and is passed on, to suspend the run as it would anywhere.
    prompt.once("SIGINT", () => {
      interrupted.abort();
      process.kill(process.pid, "SIGINT");
    });
    try {
      const answer = await prompt.question(question(tool, input), { signal: interrupted.signal });
      return /^y(es)?$/i.test(answer.trim());
    } catch {
      return false;
    } finally {
      prompt.close();
    }
  };
}
