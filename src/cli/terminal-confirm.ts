// Asks y/N on the terminal before a `confirm` tool runs. Where there is no terminal to
// ask on, the call is denied: a tool that needs a person never runs without one.
import { createInterface } from "node:readline/promises";
import { denyWithoutTerminal, type ConfirmToolCall } from "../tools/tool-set.js";

export function terminalConfirm(stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream): ConfirmToolCall {
  if (!stdin.isTTY || !stderr.isTTY) return denyWithoutTerminal;
  return async (tool, input) => {
    const prompt = createInterface({ input: stdin, output: stderr });
    const interrupted = new AbortController();
    // A prompt puts the terminal in raw mode, where Ctrl-C reaches readline and not the
    // process: it denies this call and is passed on, to suspend the run as it would anywhere.
    prompt.once("SIGINT", () => {
      interrupted.abort();
      process.kill(process.pid, "SIGINT");
    });
    try {
      const answer = await prompt.question(`Run ${tool.name} ${JSON.stringify(input)}? [y/N] `, { signal: interrupted.signal });
      return /^y(es)?$/i.test(answer.trim());
    } catch {
      return false;
    } finally {
      prompt.close();
    }
  };
}
