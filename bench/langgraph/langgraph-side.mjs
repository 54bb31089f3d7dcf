// LangGraph.js's side of bench/postgres-langgraph.bench.ts, run by it in a process of its own
// with this folder's packages (`npm ci --prefix bench/langgraph`): the conversation the bench
// wrote to a JSON file, played as a graph of a model node and a tool node, each super-step
// checkpointed by PostgresSaver. `node langgraph-side.mjs setup|persist|resume URL CONVERSATION`
// prints the milliseconds persist or resume took.
import { readFileSync } from "node:fs";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";

const [mode, url, conversationPath] = process.argv.slice(2);
/** { prompt, turns: [{ text, callId, tool, input, result }], answer } */
const conversation = JSON.parse(readFileSync(conversationPath, "utf8"));
const thread = { configurable: { thread_id: "bench" } };
const saver = PostgresSaver.fromConnString(url);

/** The turn a state is at: one human message, then an AI message and a tool message a turn. */
const turnOf = (state) => (state.messages.length - 1) / 2;

const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", (state) => {
    const turn = conversation.turns[turnOf(state)];
    if (turn === undefined) return { messages: [new AIMessage(conversation.answer)] };
    return { messages: [new AIMessage({ content: turn.text, tool_calls: [{ id: turn.callId, name: turn.tool, args: turn.input }] })] };
  })
  .addNode("tools", (state) => {
    const turn = conversation.turns[(state.messages.length - 2) / 2];
    return { messages: [new ToolMessage({ content: turn.result, tool_call_id: turn.callId })] };
  })
  .addEdge(START, "agent")
  .addConditionalEdges("agent", (state) => (state.messages.at(-1).tool_calls?.length > 0 ? "tools" : END))
  .addEdge("tools", "agent")
  .compile({ checkpointer: saver });

try {
  if (mode === "setup") await saver.setup();
  else if (mode === "persist") {
    const started = performance.now();
    await graph.invoke({ messages: [new HumanMessage(conversation.prompt)] }, { ...thread, recursionLimit: conversation.turns.length * 2 + 10 });
    console.log((performance.now() - started).toFixed(1));
  } else if (mode === "resume") {
    // The pool's first connection is made before the clock starts, as fisk-ai's store has its own.
    await saver.getTuple({ configurable: { thread_id: "warm-up" } });
    const started = performance.now();
    const state = await graph.getState(thread);
    const ms = performance.now() - started;
    if (state.values.messages.length !== conversation.turns.length * 2 + 2) throw new Error(`resumed ${state.values.messages.length} messages`);
    console.log(ms.toFixed(1));
  } else throw new Error(`mode is setup, persist or resume, not ${mode}`);
} finally {
  await saver.end();
}
