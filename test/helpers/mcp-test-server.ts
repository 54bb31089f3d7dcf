// A real MCP server, written with the SDK's server side, for the MCP tests: run as a
// script it serves stdio; `startHttpMcpServer` serves streamable HTTP on loopback.
// Its behavior is steered by its environment, so a test can change it between runs.
import { randomUUID } from "node:crypto";
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import * as z from "zod";

// 1x1 transparent PNG.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/**
 * The tools: `echo`; `count` (logs its label to COUNT_LOG, then waits for the GATE file
 * when GATE is set, so a test can kill the run mid-call); `ask` (asks the client a question,
 * elicitation, and answers with what came back); `picture` (an image among
 * content the journal cannot hold); `fail` (isError); `environment` (its whole
 * environment); `slow` (answers after a minute); `big` only with BIG_TOOL set
 * (`bytes` bytes of text); `extra` only with EXTRA_TOOL set.
 */
export function testServer(env: NodeJS.ProcessEnv): McpServer {
  const server = new McpServer({ name: "fisk-test", version: "1.0.0" });
  server.registerTool("echo", { description: "Echo the text back", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text: `echo: ${text}` }],
  }));
  server.registerTool("count", { description: "Count a call", inputSchema: { label: z.string() } }, async ({ label }) => {
    if (env.COUNT_LOG !== undefined) appendFileSync(env.COUNT_LOG, `${label}\n`);
    while (env.GATE !== undefined && !existsSync(env.GATE)) await new Promise((resolve) => setTimeout(resolve, 20));
    return { content: [{ type: "text", text: `counted ${label}` }] };
  });
  server.registerTool("picture", { description: "Take a picture" }, async () => ({
    content: [
      { type: "text", text: "here it is" },
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      { type: "resource_link", uri: "file:///tmp/picture.png", name: "picture" },
    ],
  }));
  server.registerTool("fail", { description: "Fail" }, async () => ({ content: [{ type: "text", text: "it failed" }], isError: true }));
  server.registerTool("environment", { description: "Print the environment" }, async () => ({
    content: [{ type: "text", text: JSON.stringify(process.env) }],
  }));
  server.registerTool("slow", { description: "Answer after a minute" }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 60_000));
    return { content: [{ type: "text", text: "late" }] };
  });
  server.registerTool("ask", { description: "Ask the user for a name and a count" }, async () => {
    const answer = await server.server.elicitInput({
      message: "Who is asking, and how many?",
      requestedSchema: {
        type: "object",
        properties: { name: { type: "string", description: "Your name", default: "Ada" }, count: { type: "integer", description: "How many" } },
        required: ["name", "count"],
      },
    });
    return { content: [{ type: "text", text: `${answer.action} ${JSON.stringify(answer.content ?? {})}` }] };
  });
  if (env.BIG_TOOL !== undefined) {
    server.registerTool("big", { description: "Answer at length", inputSchema: { bytes: z.number().int() } }, async ({ bytes }) => ({
      content: [{ type: "text", text: "y".repeat(bytes) }],
    }));
  }
  if (env.EXTRA_TOOL !== undefined) {
    server.registerTool("extra", { description: "A tool that comes and goes" }, async () => ({ content: [{ type: "text", text: "extra" }] }));
  }
  return server;
}

export interface HttpMcpServer {
  url: string;
  /** The Authorization header of every request received. */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/**
 * Serves streamable HTTP requests for a test's own HTTP server: stateless, a fresh server
 * and transport per request; or with sessions (`stateful`), which a server needs to ask
 * the client a question (it must know the client's capabilities from its handshake).
 */
export function mcpRequestHandler(env: NodeJS.ProcessEnv = {}, stateful = false): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  if (stateful) return sessionHandler(env);
  return async (req, res) => {
    const transport = new StreamableHTTPServerTransport({});
    const server = testServer(env);
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
}

function sessionHandler(env: NodeJS.ProcessEnv): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  return async (req, res) => {
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (transport === undefined) {
      const fresh = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, fresh),
      });
      await testServer(env).connect(fresh);
      transport = fresh;
    }
    await transport.handleRequest(req, res);
  };
}

/** Streamable HTTP on 127.0.0.1, stateless: a fresh server and transport per request. */
export async function startHttpMcpServer(env: NodeJS.ProcessEnv = {}): Promise<HttpMcpServer> {
  const authorizations: (string | undefined)[] = [];
  const handle = mcpRequestHandler(env);
  const http: Server = createServer(async (req, res) => {
    authorizations.push(req.headers.authorization);
    await handle(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    authorizations,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.env.PID_FILE !== undefined) writeFileSync(process.env.PID_FILE, String(process.pid));
  if (process.env.FAIL_START !== undefined) {
    process.stderr.write("starting up\nfatal: cannot open the database\n");
    process.exit(1);
  }
  await testServer(process.env).connect(new StdioServerTransport());
}
