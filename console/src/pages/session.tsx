// One session: its transcript windowed from the end (earlier records on request, so a 100 MB
// session opens as fast as a small one), followed live, with the actions the CLI has.
import { useEffect, useState } from "preact/hooks";
import * as api from "../api-routes.js";
import { go, hrefOf } from "../router.js";
import { followSession } from "../session-follow.js";
import { ageText, dollarsText, tokensText } from "../text.js";
import { Transcript, type TranscriptEntry } from "../transcript.js";

function Actions({ session, onChanged }: { session: api.Session; onChanged: () => void }) {
  const [error, setError] = useState("");
  const act = (work: () => Promise<unknown>) => {
    setError("");
    work().then(onChanged, (reason: Error) => setError(reason.message));
  };
  const { runId } = session;
  const destroy = () => {
    // Asked as the CLI asks before it removes a session.
    if (confirm(`Delete session ${runId} and its journal? This cannot be undone.`)) act(() => api.remove(runId).then(() => go({ page: "sessions" })));
  };
  const rename = () => {
    const title = prompt("New title", session.title ?? "");
    if (title !== null && title.trim() !== "") act(() => api.rename(runId, title));
  };
  const compact = () => {
    if (confirm("Compact this session's context now? The model then sees a summary of what came before.")) act(() => api.compact(runId));
  };
  return (
    <div class="actions">
      <button type="button" onClick={() => act(() => api.fork(runId).then((fork) => go({ page: "session", id: fork.runId })))}>
        Fork
      </button>
      <button type="button" onClick={compact}>
        Compact
      </button>
      <button type="button" onClick={rename}>
        Rename
      </button>
      <a class="button" href={api.exportUrl(runId)} download={`${runId}.ndjson`}>
        Export
      </a>
      <button type="button" class="danger" onClick={destroy}>
        Delete
      </button>
      {error !== "" && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </div>
  );
}

function ChatBox({ id }: { id: string }) {
  const [text, setText] = useState("");
  const [error, setError] = useState("");
  const send = (event: Event) => {
    event.preventDefault();
    if (text.trim() === "") return;
    api.followUp(id, text).then(
      () => {
        setText("");
        setError("");
      },
      (reason: Error) => setError(reason.message),
    );
  };
  return (
    <form class="chat" onSubmit={send}>
      <label for="follow-up">Follow-up</label>
      <textarea id="follow-up" value={text} onInput={(event) => setText(event.currentTarget.value)} rows={3} />
      <button type="submit">Send</button>
      {error !== "" && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}

function Facts({ overview, onChanged }: { overview: api.SessionOverview; onChanged: () => void }) {
  const { session, total, calls, waiting, children } = overview;
  return (
    <>
      <p class="facts">
        {session.runId} · {dollarsText(total.cost)} · {tokensText(session.tokens ?? 0)} tokens · {calls.length} model calls · {ageText(session.updated)} ago
        {session.parent !== undefined && (
          <>
            {" "}
            · child of <a href={hrefOf({ page: "session", id: session.parent })}>{session.parent}</a>
          </>
        )}
      </p>
      <Actions session={session} onChanged={onChanged} />
      {waiting.length > 0 && (
        <p class="pending">
          {waiting.length} call(s) wait for a decision: <a href={hrefOf({ page: "approvals" })}>approvals</a>
        </p>
      )}
      {children.length > 0 && (
        <details class="children">
          <summary>{children.length} child session(s)</summary>
          <ul>
            {children.map((child) => (
              <li key={child.runId} class={`depth-${Math.min(child.depth, 6)}`}>
                <a href={hrefOf({ page: "session", id: child.runId })}>{child.runId}</a> <span class={`status ${child.status}`}>{child.status}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}

export function SessionPage({ id }: { id: string }) {
  const [overview, setOverview] = useState<api.SessionOverview | undefined>();
  const [entries, setEntries] = useState<TranscriptEntry[]>([]);
  const [firstSeq, setFirstSeq] = useState(0);
  const [more, setMore] = useState(false);
  const [error, setError] = useState("");
  // The overview is asked again at each status the stream brings: one that fails (a server
  // restarting) is said beside the transcript, which goes on, until the next one answers.
  const [overviewError, setOverviewError] = useState("");
  const [changes, setChanges] = useState(0);

  useEffect(() => {
    api.getSession(id).then(
      (answer) => (setOverview(answer), setOverviewError("")),
      (reason: Error) => setOverviewError(reason.message),
    );
  }, [id, changes]);

  useEffect(() => {
    let stop = () => {};
    let current = true;
    api.transcript(id).then(
      (window) => {
        if (!current) return;
        setEntries(window.entries);
        setFirstSeq(window.firstSeq);
        setMore(window.more);
        stop = followSession(id, window.lastSeq, {
          record: (_seq, added) => setEntries((shown) => [...shown, ...added]),
          status: () => setChanges((n) => n + 1),
        });
      },
      (reason: Error) => setError(reason.message),
    );
    return () => {
      current = false;
      stop();
    };
  }, [id]);

  const earlier = () =>
    api.transcript(id, firstSeq).then((window) => {
      setEntries((shown) => [...window.entries, ...shown]);
      setFirstSeq(window.firstSeq);
      setMore(window.more);
    });

  if (error !== "")
    return (
      <p role="alert" class="error">
        {error}
      </p>
    );
  const session = overview?.session;
  return (
    <section aria-labelledby="session-heading">
      <h1 id="session-heading">
        {session?.title ?? id} <span class={`status ${session?.status ?? ""}`}>{session?.status}</span>
      </h1>
      {overviewError !== "" && (
        <p role="alert" class="error">
          {overviewError}
        </p>
      )}
      {overview !== undefined && <Facts overview={overview} onChanged={() => setChanges((n) => n + 1)} />}
      {more && (
        <button type="button" onClick={earlier}>
          Earlier records
        </button>
      )}
      <Transcript entries={entries} onOpenChild={(child) => go({ page: "session", id: child })} />
      <ChatBox id={id} />
    </section>
  );
}
