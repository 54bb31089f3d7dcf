// One session: its transcript windowed from the end (earlier records on request, so a 100 MB
// session opens as fast as a small one), followed live, with the actions the CLI has.
import { useEffect, useState } from "preact/hooks";
import * as api from "../api-routes.js";
import { followSession } from "../session-follow.js";
import { go, hrefOf } from "../router.js";
import { ageText, dollarsText, tokensText } from "../text.js";
import { Transcript, type TranscriptEntry } from "../transcript.js";

function Actions({ detail, onChanged }: { detail: api.SessionDetail; onChanged: () => void }) {
  const [error, setError] = useState("");
  const act = (work: () => Promise<unknown>) => () => {
    setError("");
    work().then(onChanged, (reason: Error) => setError(reason.message));
  };
  const destroy = () => {
    // Asked as the CLI asks before it removes a session.
    if (confirm(`Delete session ${detail.id} and its journal? This cannot be undone.`)) act(() => api.remove(detail.id).then(() => go({ page: "sessions" })))();
  };
  const rename = () => {
    const title = prompt("New title", detail.title ?? "");
    if (title !== null) act(() => api.rename(detail.id, title))();
  };
  const fork = () => act(() => api.fork(detail.id, undefined).then(({ id }) => go({ page: "session", id })))();
  return (
    <div class="actions">
      <button type="button" disabled={detail.status !== "running"} onClick={act(() => api.suspend(detail.id))}>
        Suspend
      </button>
      <button type="button" onClick={fork}>
        Fork
      </button>
      <button type="button" onClick={() => confirm("Compact this session's context now?") && act(() => api.compact(detail.id))()}>
        Compact
      </button>
      <button type="button" onClick={rename}>
        Rename
      </button>
      <a class="button" href={api.exportUrl(detail.id)} download={`${detail.id}.ndjson`}>
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
      () => (setText(""), setError("")),
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

export function SessionPage({ id }: { id: string }) {
  const [detail, setDetail] = useState<api.SessionDetail | undefined>();
  const [entries, setEntries] = useState<TranscriptEntry[]>([]);
  const [firstSeq, setFirstSeq] = useState(0);
  const [more, setMore] = useState(false);
  const [streaming, setStreaming] = useState("");
  const [error, setError] = useState("");
  const [changes, setChanges] = useState(0);

  useEffect(() => {
    api.getSession(id).then(setDetail, (reason: Error) => setError(reason.message));
  }, [id, changes]);

  useEffect(() => {
    let stop = () => {};
    let current = true;
    setEntries([]);
    api.transcript(id).then(
      (window) => {
        if (!current) return;
        setEntries(window.entries);
        setFirstSeq(window.firstSeq);
        setMore(window.more);
        stop = followSession(id, window.lastSeq, {
          record: (_seq, added) => {
            setStreaming("");
            setEntries((shown) => [...shown, ...added]);
          },
          delta: (text) => setStreaming((shown) => shown + text),
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
  return (
    <section aria-labelledby="session-heading">
      <h1 id="session-heading">
        {detail?.title ?? id} <span class={`status ${detail?.status ?? ""}`}>{detail?.status}</span>
      </h1>
      {detail !== undefined && (
        <>
          <p class="facts">
            {id} · {detail.agent ?? ""} · {dollarsText(detail.cost)} · {tokensText(detail.tokens)} tokens · {ageText(detail.updated)} ago
            {detail.parent !== undefined && (
              <>
                {" "}
                · child of <a href={hrefOf({ page: "session", id: detail.parent })}>{detail.parent}</a>
              </>
            )}
          </p>
          <Actions detail={detail} onChanged={() => setChanges((n) => n + 1)} />
          {detail.pending.length > 0 && (
            <p class="pending">
              {detail.pending.length} call(s) wait for a decision: <a href={hrefOf({ page: "approvals" })}>approvals</a>
            </p>
          )}
        </>
      )}
      {more && (
        <button type="button" onClick={earlier}>
          Earlier records
        </button>
      )}
      <Transcript entries={entries} onOpenChild={(child) => go({ page: "session", id: child })} />
      {streaming !== "" && (
        <div class="entry text streaming" aria-busy="true">
          <pre>{streaming}</pre>
        </div>
      )}
      <ChatBox id={id} />
    </section>
  );
}
