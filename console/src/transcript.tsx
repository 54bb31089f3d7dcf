// A session's transcript as the terminal viewer shows it: turns, tool calls folded with their
// arguments and results, children to open, markers. Every model and tool text is a text node:
// nothing a model or a tool wrote is ever parsed as markup or followed as a link.
import { useState } from "preact/hooks";
import type { TranscriptEntry } from "../../src/transcript/transcript-entries.js";

export type { TranscriptEntry };

function Folded({ summary, children, className }: { summary: string; children: preact.ComponentChildren; className: string }) {
  const [open, setOpen] = useState(false);
  return (
    <div class={`entry ${className}`}>
      <button type="button" class="fold" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? "▾ " : "▸ "}
        {summary}
      </button>
      {open && <div class="folded">{children}</div>}
    </div>
  );
}

function firstLine(text: string, width = 120): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > width ? `${line.slice(0, width)}…` : line;
}

function Entry({ entry, onOpenChild }: { entry: TranscriptEntry; onOpenChild: (runId: string) => void }) {
  switch (entry.kind) {
    case "user":
      return (
        <div class="entry user">
          <span class="who">you</span>
          <pre>{entry.text}</pre>
        </div>
      );
    case "text":
      return (
        <div class="entry text">
          <pre>{entry.text}</pre>
        </div>
      );
    case "thinking":
      return (
        <Folded className="thinking" summary={entry.redacted ? "thinking (redacted)" : `thinking: ${firstLine(entry.text, 80)}`}>
          <pre>{entry.text}</pre>
        </Folded>
      );
    case "tool_call":
      return (
        <div class="entry tool-call">
          <span class="tool">{entry.name}</span>
          <code>{JSON.stringify(entry.input)}</code>
        </div>
      );
    case "child":
      return (
        <div class="entry child">
          <button type="button" class="link" onClick={() => onOpenChild(entry.runId)}>
            ↳ {entry.name} {entry.runId}
          </button>{" "}
          <span class={`status ${entry.status}`}>{entry.status}</span> {entry.title}
        </div>
      );
    case "tool_result":
      return (
        <Folded
          className={entry.error ? "tool-result error" : "tool-result"}
          summary={`${entry.name} → ${firstLine(entry.text)}${entry.ms === undefined ? "" : ` (${entry.ms} ms)`}`}
        >
          <pre>{entry.text}</pre>
        </Folded>
      );
    case "model_call":
      return <div class="entry model-call">model call, {entry.ms} ms</div>;
    case "other":
      return (
        <div class="entry other">
          <pre>{entry.text}</pre>
        </div>
      );
    case "marker":
      return entry.detail === undefined ? (
        <div class="entry marker">{entry.text}</div>
      ) : (
        <Folded className="marker" summary={entry.text}>
          <pre>{entry.detail}</pre>
        </Folded>
      );
  }
}

/** Keys that stay with an entry as earlier records are put before it: its seq, and its place among its record's entries. */
function keyed(entries: readonly TranscriptEntry[]): { key: string; entry: TranscriptEntry }[] {
  let seq = -1;
  let place = 0;
  return entries.map((entry) => {
    place = entry.seq === seq ? place + 1 : 0;
    seq = entry.seq;
    return { key: `${seq}.${place}`, entry };
  });
}

export function Transcript({ entries, onOpenChild }: { entries: readonly TranscriptEntry[]; onOpenChild: (runId: string) => void }) {
  return (
    <div class="transcript" role="log" aria-live="polite">
      {keyed(entries).map(({ key, entry }) => (
        <div key={key} data-seq={entry.seq} data-kind={entry.kind}>
          <Entry entry={entry} onOpenChild={onOpenChild} />
        </div>
      ))}
    </div>
  );
}
