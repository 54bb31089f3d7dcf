// A workspace for the console's browser tests: an agent of the script provider whose first
// call waits for an approval, whose second tool prints markup and script meant to run in a
// page, and whose answer holds a javascript: link, so one run shows everything a hostile
// model or tool could put in front of the console.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** What the tool and the model write, each of which the page must show as text and never run. */
export const HOSTILE = {
  toolOutput: `<script>alert(1)</script></script><img src=x onerror="alert(2)">`,
  answer: `done: [click](javascript:alert(3)) <img src=x onerror="alert(4)"> <b>bold?</b>`,
};

export function writeConsoleWorkspace(dir: string): { dir: string; env: NodeJS.ProcessEnv } {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "agent.yaml"),
    `provider: script
model: script-test
script: ./console.script.yaml
system: You are the console's test agent.
tools:
  - name: note
    description: Append a line to the notes
    command: [sh, -c, 'echo "$1" >> "$SIDE_LOG"; echo "noted $1"', sh, "{text}"]
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
    confirm: true
  - name: show
    description: Print a page of markup
    command: [sh, -c, 'cat "$HOSTILE_FILE"']
    input_schema: { type: object, properties: {} }
session: { state_dir: ./state }
`,
  );
  writeFileSync(
    join(dir, "console.script.yaml"),
    `turns:
  - tool_calls: [{ name: note, input: { text: approved-note } }]
  - tool_calls: [{ name: show, input: {} }]
  - text: ${JSON.stringify(HOSTILE.answer)}
`,
  );
  const hostileFile = join(dir, "hostile.html");
  writeFileSync(hostileFile, HOSTILE.toolOutput);
  return {
    dir,
    env: { PATH: process.env.PATH, HOME: dir, SIDE_LOG: join(dir, "side-effects.log"), HOSTILE_FILE: hostileFile, NO_COLOR: "1" },
  };
}
