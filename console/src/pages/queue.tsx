// The pool: queued, running and parked runs with the follow-ups behind them, the processes
// driving runs; start a new run.
import { useEffect, useState } from "preact/hooks";
import * as api from "../api-routes.js";
import { go, hrefOf } from "../router.js";
import { onStoreChange } from "../store-events.js";
import { ageText } from "../text.js";

function StartRun() {
  const [agents, setAgents] = useState<{ name: string; model: string }[]>([]);
  const [agent, setAgent] = useState("");
  const [prompt, setPrompt] = useState("");
  const [error, setError] = useState("");
  useEffect(() => {
    api.agents().then(
      (answer) => {
        setAgents(answer.agents);
        setAgent(answer.agents[0]?.name ?? "");
      },
      (reason: Error) => setError(reason.message),
    );
  }, []);
  const start = (event: Event) => {
    event.preventDefault();
    api.startRun(agent, prompt).then(
      (started) => go({ page: "session", id: started.runId }),
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

function Workers() {
  const [workers, setWorkers] = useState<api.WorkerStatus[] | undefined>();
  const [error, setError] = useState("");
  useEffect(() => {
    api.workers().then(
      (answer) => setWorkers(answer.workers),
      (reason: Error) => setError(reason.message),
    );
  }, []);
  if (error !== "") return <p class="facts">Workers: {error}</p>;
  return (
    <table>
      <caption>Processes driving runs</caption>
      <thead>
        <tr>
          <th scope="col">Host</th>
          <th scope="col">PID</th>
          <th scope="col">Since</th>
          <th scope="col">Runs</th>
        </tr>
      </thead>
      <tbody>
        {workers?.map((worker) => (
          <tr key={`${worker.host}/${worker.pid}`}>
            <td>{worker.host}</td>
            <td>{worker.pid}</td>
            <td>{ageText(worker.started)} ago</td>
            <td>{worker.runs.join(", ")}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function QueuePage() {
  const [runs, setRuns] = useState<api.QueueItem[] | undefined>();
  const [error, setError] = useState("");
  const [changes, setChanges] = useState(0);
  useEffect(() => onStoreChange(() => setChanges((n) => n + 1)), []);
  useEffect(() => {
    api.queue().then(
      (answer) => setRuns(answer.runs),
      (reason: Error) => setError(reason.message),
    );
  }, [changes]);
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
            <th scope="col">Worker</th>
          </tr>
        </thead>
        <tbody>
          {runs?.map((run) => (
            <tr key={run.runId}>
              <td>
                <a href={hrefOf({ page: "session", id: run.runId })}>{run.runId}</a>
              </td>
              <td>{run.state}</td>
              <td>{ageText(run.queued)} ago</td>
              <td>{run.behind}</td>
              <td>{run.holder === undefined ? "" : `${run.holder.host} ${run.holder.pid}`}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Workers />
      <StartRun />
    </section>
  );
}
