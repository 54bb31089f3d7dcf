// Asks on the terminal about one tool call: y/N before a `confirm` tool runs, and on
// resume before an `on_crash: ask` call that was cut short runs again; and an ask_user
// question, whose answer is the line typed. Where there is no terminal to ask on there is
// no one to ask (undefined): the run parks the call when it is checkpointed, else denies it.
import { createInterface } from "node:readline/promises";
import type { AskUser } from "../../agent/approvals.js";
import type { ConfirmToolCall } from "../../tools/tool-set.js";

export function terminalConfirm(stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream): ConfirmToolCall | undefined {
  const ask = terminalLine(stdin, stderr);
  if (ask === undefined) return undefined;
  return async (tool, input) => /^y(es)?$/i.test((await ask(`Run ${tool.name} ${JSON.stringify(input)}? [y/N] `)) ?? "");
}

export function terminalAskRerun(stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream): ConfirmToolCall | undefined {
  const ask = terminalLine(stdin, stderr);
  if (ask === undefined) return undefined;
  return async (tool, input) =>
    /^y(es)?$/i.test(
      (await ask(
        `${tool.name} ${JSON.stringify(input)} may have been running when the run was interrupted. Run it again? (no: the model is told its effect is unknown) [y/N] `,
      )) ?? "",
    );
}

export function terminalAskUser(stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream): AskUser | undefined {
  const ask = terminalLine(stdin, stderr);
  if (ask === undefined) return undefined;
  return async (question) => {
    const answer = await ask(`The model asks: ${question}\n> `);
    if (answer === undefined) throw new Error("the question was not answered");
    return answer;
  };
}

/** Asks one line on the terminal; undefined when Ctrl-C cut it short. */
export function terminalLine(stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream): ((question: string) => Promise<string | undefined>) | undefined {
  if (!stdin.isTTY || !stderr.isTTY) return undefined;
  return async (question) => {
    const prompt = createInterface({ input: stdin, output: stderr });
    const interrupted = new AbortController();
    // A prompt puts the terminal in raw mode, where Ctrl-C reaches readline and not the
    // process: it answers no and is passed on, to suspend the run as it would anywhere.
    prompt.once("SIGINT", () => {
      interrupted.abort();
      process.kill(process.pid, "SIGINT");
    });
    try {
      return (await prompt.question(question, { signal: interrupted.signal })).trim();
    } catch {
      return undefined;
    } finally {
      prompt.close();
    }
  };
}
