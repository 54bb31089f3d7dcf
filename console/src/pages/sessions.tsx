// The sessions table: searched, filtered and paged by the server, so it stays quick at any
// number of sessions, and refreshed when the store-wide stream says a session changed.
import { useEffect, useState } from "preact/hooks";
import { listSessions, type SessionList } from "../api-routes.js";
import { onStoreChange } from "../store-events.js";
import { hrefOf } from "../router.js";
import { ageText, dollarsText, tokensText } from "../text.js";

const STATUSES = ["", "running", "awaiting_approval", "completed", "suspended", "error", "budget", "max_iterations", "open", "moved", "corrupt"];

export function SessionsPage() {
  const [search, setSearch] = useState("");
  const [status, setStatus] = useState("");
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<SessionList | undefined>();
  const [error, setError] = useState("");
  const [changes, setChanges] = useState(0);
  const cursor = cursors[cursors.length - 1];

  useEffect(() => onStoreChange(() => setChanges((n) => n + 1)), []);
  useEffect(() => {
    let current = true;
    listSessions({ search, status, cursor })
      .then((result) => current && (setPage(result), setError("")))
      .catch((reason: Error) => current && setError(reason.message));
    return () => {
      current = false;
    };
  }, [search, status, cursor, changes]);

  return (
    <section aria-labelledby="sessions-heading">
      <h1 id="sessions-heading">Sessions</h1>
      <form class="filters" aria-label="filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          Search <input type="search" value={search} onInput={(event) => (setSearch(event.currentTarget.value), setCursors([undefined]))} />
        </label>
        <label>
          Status{" "}
          <select value={status} onChange={(event) => (setStatus(event.currentTarget.value), setCursors([undefined]))}>
            {STATUSES.map((value) => (
              <option key={value} value={value}>
                {value === "" ? "any" : value}
              </option>
            ))}
          </select>
        </label>
      </form>
      {error !== "" && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <table class="sessions">
        <thead>
          <tr>
            <th scope="col">Session</th>
            <th scope="col">Status</th>
            <th scope="col">Agent</th>
            <th scope="col">Title</th>
            <th scope="col" class="number">
              Cost
            </th>
            <th scope="col" class="number">
              Tokens
            </th>
            <th scope="col">Age</th>
            <th scope="col">Parent</th>
          </tr>
        </thead>
        <tbody>
          {page?.sessions.map((row) => (
            <tr key={row.runId} data-session={row.runId}>
              <td>
                <a href={hrefOf({ page: "session", id: row.runId })}>{row.runId}</a>
              </td>
              <td>
                <span class={`status ${row.status}`}>{row.status}</span>
              </td>
              <td>{row.agent ?? row.model ?? ""}</td>
              <td>{row.title ?? row.prompt ?? ""}</td>
              <td class="number">{dollarsText(row.cost)}</td>
              <td class="number">{tokensText(row.tokens)}</td>
              <td>{ageText(row.updated)}</td>
              <td>{row.parent === undefined ? "" : <a href={hrefOf({ page: "session", id: row.parent })}>{row.parent}</a>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {page?.sessions.length === 0 && <p>{search === "" && status === "" ? "No sessions yet." : "No session matches."}</p>}
      <nav class="pager" aria-label="pages">
        <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </button>
        <button type="button" disabled={page?.next === undefined} onClick={() => setCursors([...cursors, page?.next])}>
          Older
        </button>
      </nav>
    </section>
  );
}
