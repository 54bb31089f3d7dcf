// The agent the replay tests record and replay: a script, a tool with a side effect (each
// `mark` appends to marks.txt, which no replay may touch) and one without, and any tool more.
export function replayAgentYaml(script: string, stateDir: string, extraTool = ""): string {
  return `provider: script
model: script-replay
script: ./${script}
tools:
  - name: mark
    description: Append a line to the marks file
    command: [sh, -c, 'echo "$1" >> marks.txt && echo "marked $1"', sh, "{note}"]
    input_schema: { type: object, properties: { note: { type: string } }, required: [note] }
  - name: lookup
    description: Look a term up
    command: [echo, "found {q}"]
    input_schema: { type: object, properties: { q: { type: string } }, required: [q] }
${extraTool}session: { state_dir: ${stateDir} }
`;
}
