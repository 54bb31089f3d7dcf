// Every call waiting for a decision across the sessions this key can see: approve, deny with
// a reason, answer a question. A call decided elsewhere first says who decided it.
import { useEffect, useState } from "preact/hooks";
import * as api from "../api-routes.js";
import { hrefOf } from "../router.js";
import { onStoreChange } from "../store-events.js";
import { ageText } from "../text.js";

function Decision({ pending, onDone }: { pending: api.WaitingCall; onDone: (note: string) => void }) {
  const [reply, setReply] = useState("");
  const [error, setError] = useState("");
  const decide = (decision: api.Decision) =>
    api.decide(pending, decision).then(
      ({ decided }) => onDone(`decided by ${decided[0]?.decided_by ?? "you"}`),
      (reason: Error) => setError(reason.message),
    );
  const question = pending.kind === "question";
  const label = `${question ? "answer" : "reason"} for ${pending.name} in ${pending.runId}`;
  return (
    <li class="approval" data-call={pending.toolUseId}>
      <p>
        <a href={hrefOf({ page: "session", id: pending.runId })}>{pending.runId}</a> asks {question ? "a question" : <span class="tool">{pending.name}</span>},{" "}
        {ageText(pending.requestedAt)} ago
      </p>
      <pre>{question ? String(pending.input.question ?? JSON.stringify(pending.input)) : JSON.stringify(pending.input, null, 2)}</pre>
      <label>
        <span class="visually-hidden">{label}</span>
        <input type="text" placeholder={question ? "answer" : "reason (for a denial)"} value={reply} onInput={(event) => setReply(event.currentTarget.value)} />
      </label>
      {question ? (
        <button type="button" disabled={reply.trim() === ""} onClick={() => decide({ decision: "answer", answer: reply })}>
          Answer
        </button>
      ) : (
        <>
          <button type="button" onClick={() => decide({ decision: "approve" })}>
            Approve
          </button>
          <button type="button" class="danger" disabled={reply.trim() === ""} onClick={() => decide({ decision: "deny", reason: reply })}>
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
  const [calls, setCalls] = useState<api.WaitingCall[] | undefined>();
  const [note, setNote] = useState("");
  const [changes, setChanges] = useState(0);
  const [error, setError] = useState("");
  useEffect(() => onStoreChange(() => setChanges((n) => n + 1)), []);
  useEffect(() => {
    api.approvals().then(
      (answer) => setCalls(answer.calls),
      (reason: Error) => setError(reason.message),
    );
  }, [changes]);
  const done = (pending: api.WaitingCall) => (text: string) => {
    setNote(`${pending.name} in ${pending.runId}: ${text}`);
    setChanges((n) => n + 1);
  };
  return (
    <section aria-labelledby="approvals-heading">
      <h1 id="approvals-heading">Approvals</h1>
      {error !== "" && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {note !== "" && <p role="status">{note}</p>}
      {calls?.length === 0 && <p>Nothing waits for a decision.</p>}
      <ul class="approvals">
        {calls?.map((pending) => (
          <Decision key={`${pending.runId}/${pending.toolUseId}`} pending={pending} onDone={done(pending)} />
        ))}
      </ul>
    </section>
  );
}
