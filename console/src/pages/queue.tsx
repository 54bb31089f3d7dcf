// The pool: queued, running and parked runs with the follow-ups behind them, each worker and
// its last heartbeat; withdraw a queued run, start a new one.
import { useEffect, useState } from "preact/hooks";
import * as api from "../api-routes.js";
import { onStoreChange } from "../store-events.js";
import { go, hrefOf } from "../router.js";
import { ageText } from "../text.js";

function StartRun() {
  const [agents, setAgents] = useState<{ name: string; model: string }[]>([]);
  const [agent, setAgent] = useState("");
  const [prompt, setPrompt] = useState("");
  const [error, setError] = useState("");
  useEffect(() => {
    api.agents().then(
      ({ agents }) => (setAgents(agents), setAgent(agents[0]?.name ?? "")),
      (reason: Error) => setError(reason.message),
    );
  }, []);
  const start = (event: Event) => {
    event.preventDefault();
    api.startRun(agent, prompt).then(
      ({ id }) => go({ page: "session", id }),
      (reason: Error) => setError(reason.message),
    );
  };
  return (
    <form class="start" onSubmit={start} aria-labelledby="start-heading">
      <h2 id="start-heading">Start a run</h2>
      <label>
        Agent{" "}
        <select value={agent} onChange={(event) => setAgent(event.currentTarget.value)}>
          {agents.map((each) => (
            <option key={each.name} value={each.name}>
              {each.name} ({each.model})
            </option>
          ))}
        </select>
      </label>
      <label for="start-prompt">Prompt</label>
      <textarea id="start-prompt" rows={3} value={prompt} onInput={(event) => setPrompt(event.currentTarget.value)} />
      <button type="submit" disabled={agent === "" || prompt.trim() === ""}>
        Start
      </button>
      {error !== "" && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}

export function QueuePage() {
  const [view, setView] = useState<api.QueueView | undefined>();
  const [error, setError] = useState("");
  const [changes, setChanges] = useState(0);
  useEffect(() => onStoreChange(() => setChanges((n) => n + 1)), []);
  useEffect(() => {
    api.queue().then(setView, (reason: Error) => setError(reason.message));
  }, [changes]);
  const withdraw = (id: string) => {
    if (confirm(`Withdraw the queued run of ${id}?`))
      api.withdraw(id).then(
        () => setChanges((n) => n + 1),
        (reason: Error) => setError(reason.message),
      );
  };
  return (
    <section aria-labelledby="queue-heading">
      <h1 id="queue-heading">Queue and workers</h1>
      {error !== "" && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <table>
        <caption>Runs</caption>
        <thead>
          <tr>
            <th scope="col">Session</th>
            <th scope="col">State</th>
            <th scope="col">Queued</th>
            <th scope="col">Follow-ups behind</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {view?.entries.map((entry) => (
            <tr key={entry.sessionId}>
              <td>
                <a href={hrefOf({ page: "session", id: entry.sessionId })}>{entry.sessionId}</a>
              </td>
              <td>{entry.state}</td>
              <td>{ageText(entry.queued)} ago</td>
              <td>{entry.followUps}</td>
              <td>
                {entry.state === "queued" && (
                  <button type="button" onClick={() => withdraw(entry.sessionId)}>
                    Withdraw
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <table>
        <caption>Workers</caption>
        <thead>
          <tr>
            <th scope="col">Worker</th>
            <th scope="col">Host</th>
            <th scope="col">PID</th>
            <th scope="col">Since</th>
            <th scope="col">Heartbeat</th>
          </tr>
        </thead>
        <tbody>
          {view?.workers.map((worker) => (
            <tr key={worker.id}>
              <td>{worker.id}</td>
              <td>{worker.host}</td>
              <td>{worker.pid}</td>
              <td>{ageText(worker.since)} ago</td>
              <td>{ageText(worker.heartbeat)} ago</td>
            </tr>
          ))}
        </tbody>
      </table>
      <StartRun />
    </section>
  );
}
