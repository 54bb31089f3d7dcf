// Where a chat's follow-ups come from: a readline prompt with history and line editing
// on a terminal, else one line of stdin each, so scripts and tests can drive a chat.
import { createInterface, type Interface } from "node:readline";

/** The next line typed, or undefined at the end of input (Ctrl-D, a closed pipe) or on Ctrl-C. */
export interface ChatInput {
  next(): Promise<string | undefined>;
  close(): void;
}

export function chatInput(stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream): ChatInput {
  const terminal = stdin.isTTY === true && stderr.isTTY === true;
  const lines: Interface = createInterface({ input: stdin, output: terminal ? stderr : undefined, terminal, historySize: 1000 });
  const queued: string[] = [];
  const waiting: ((line: string | undefined) => void)[] = [];
  let ended = false;
  const deliver = (line: string | undefined) => {
    const waiter = waiting.shift();
    if (waiter !== undefined) waiter(line);
    else if (line !== undefined) queued.push(line);
  };
  lines.on("line", (line) => deliver(line));
  const end = () => {
    ended = true;
    for (const waiter of waiting.splice(0)) waiter(undefined);
  };
  lines.on("close", end);
  // On a terminal the prompt holds Ctrl-C: at the prompt it ends the chat, as /exit does.
  lines.on("SIGINT", () => {
    lines.close();
  });
  return {
    next: () => {
      const line = queued.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (ended) return Promise.resolve(undefined);
      if (terminal) lines.prompt();
      return new Promise((resolve) => waiting.push(resolve));
    },
    close: () => lines.close(),
  };
}
