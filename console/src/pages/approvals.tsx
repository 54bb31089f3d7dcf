// Every call waiting for a decision across the sessions this key can see: approve, deny with
// a reason, answer a question. A call decided elsewhere first says who decided it.
import { useEffect, useState } from "preact/hooks";
import * as api from "../api-routes.js";
import { onStoreChange } from "../store-events.js";
import { hrefOf } from "../router.js";
import { ageText } from "../text.js";

function Decision({ call, onDone }: { call: api.PendingCall; onDone: (note: string) => void }) {
  const [reply, setReply] = useState("");
  const [error, setError] = useState("");
  const decide = (decision: Parameters<typeof api.decide>[1]) =>
    api.decide(call, decision).then(
      ({ decidedBy }) => onDone(`decided by ${decidedBy}`),
      (reason: api.PendingCall & Error & { status?: number }) => setError(reason.message),
    );
  const label = `${call.kind === "question" ? "answer" : "reason"} for ${call.name} in ${call.sessionId}`;
  return (
    <li class="approval" data-call={call.toolUseId}>
      <p>
        <a href={hrefOf({ page: "session", id: call.sessionId })}>{call.sessionId}</a> asks{" "}
        {call.kind === "question" ? "a question" : <span class="tool">{call.name}</span>}, {ageText(call.requestedAt)} ago
      </p>
      <pre>{call.kind === "question" ? String(call.input.question ?? JSON.stringify(call.input)) : JSON.stringify(call.input, null, 2)}</pre>
      <label>
        <span class="visually-hidden">{label}</span>
        <input
          type="text"
          placeholder={call.kind === "question" ? "answer" : "reason (for a denial)"}
          value={reply}
          onInput={(event) => setReply(event.currentTarget.value)}
        />
      </label>
      {call.kind === "question" ? (
        <button type="button" onClick={() => decide({ verdict: "answer", answer: reply })}>
          Answer
        </button>
      ) : (
        <>
          <button type="button" onClick={() => decide({ verdict: "approve" })}>
            Approve
          </button>
          <button type="button" class="danger" onClick={() => decide({ verdict: "deny", reason: reply })}>
            Deny
          </button>
        </>
      )}
      {error !== "" && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </li>
  );
}

export function ApprovalsPage() {
  const [calls, setCalls] = useState<api.PendingCall[] | undefined>();
  const [notes, setNotes] = useState<string[]>([]);
  const [changes, setChanges] = useState(0);
  const [error, setError] = useState("");
  useEffect(() => onStoreChange(() => setChanges((n) => n + 1)), []);
  useEffect(() => {
    api.approvals().then(
      ({ calls }) => setCalls(calls),
      (reason: Error) => setError(reason.message),
    );
  }, [changes]);
  return (
    <section aria-labelledby="approvals-heading">
      <h1 id="approvals-heading">Approvals</h1>
      {error !== "" && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {notes.map((note) => (
        <p key={note} role="status">
          {note}
        </p>
      ))}
      {calls?.length === 0 && <p>Nothing waits for a decision.</p>}
      <ul class="approvals">
        {calls?.map((call) => (
          <Decision
            key={`${call.sessionId}/${call.toolUseId}`}
            call={call}
            onDone={(note) => (setNotes([`${call.name} in ${call.sessionId}: ${note}`]), setChanges((n) => n + 1))}
          />
        ))}
      </ul>
    </section>
  );
}
