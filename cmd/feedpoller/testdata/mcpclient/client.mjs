// An independent MCP client for TestMCPWithTypeScriptSDK: the official
// TypeScript SDK connects to feedpoller over stdio or Streamable HTTP,
// uses every reading tool and the resources, and prints what it got as
// JSON. The SDK validates each tool's structured answer against the
// tool's output schema, and fails on anything the protocol does not
// allow.
//
//   node client.mjs stdio /path/to/feedpoller   (environment passed on)
//   node client.mjs http http://127.0.0.1:8080/mcp TOKEN
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, token] = process.argv.slice(2);
const transport = mode === "stdio"
  ? new StdioClientTransport({ command: target, args: ["mcp"], env: process.env, stderr: "ignore" })
  : new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });

const client = new Client({ name: "feedpoller-ts-sdk-test", version: "1.0.0" });
await client.connect(transport);
const out = { server: client.getServerVersion(), protocol: transport.protocolVersion ?? null };

const tools = await client.listTools();
out.tools = tools.tools.map((t) => t.name).sort();
out.schemas = tools.tools.map((t) => ({ name: t.name, input: t.inputSchema, output: t.outputSchema }));

const call = async (name, args) => {
  const res = await client.callTool({ name, arguments: args });
  if (res.isError) throw new Error(`${name}: ${JSON.stringify(res.content)}`);
  return res.structuredContent;
};
out.search = await call("search", { query: "golang", limit: 5 });
const id = out.search.results[0].id;
out.article = await call("get_article", { id, level: "full", max_tokens: 60 });
out.outline = await call("get_article", { id, level: "outline" });
out.sources = await call("list_sources", {});
out.digest = await call("digest", { since: "3650d", format: "compact", max_tokens: 300 });
const bad = await client.callTool({ name: "search", arguments: { query: "" } });
out.badQueryIsError = bad.isError === true;

const list = await client.listResources();
out.resources = list.resources.map((r) => r.uri);
out.read = await client.readResource({ uri: list.resources[0].uri });

await client.close();
console.log(JSON.stringify(out));
