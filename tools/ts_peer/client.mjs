// The TypeScript SDK's own client, talking to a server: `node client.mjs stdio COMMAND ARGS...`
// starts the server itself (as a host does), `node client.mjs http URL` reaches it over
// Streamable HTTP. It connects (the SDK's handshake), lists the tools, adds 2 and 40, pings,
// and prints one line of JSON: what it got. Used by tests/test_ts_peer.py and lesson 11.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [how, target, ...rest] = process.argv.slice(2);
const transport = how === "stdio"
  ? new StdioClientTransport({ command: target, args: rest, stderr: "ignore" })
  : new StreamableHTTPClientTransport(new URL(target));
const client = new Client({ name: "ts-sdk-client", version: "1.0" });
try {
  await client.connect(transport);
  const tools = await client.listTools();
  const added = await client.callTool({ name: "add", arguments: { a: 2, b: 40 } });
  await client.ping();
  let unknown = "answered";
  try {
    await client.callTool({ name: "multiply", arguments: {} });
  } catch (error) {
    unknown = `error ${error.code}`;
  }
  console.log(JSON.stringify({
    server: client.getServerVersion()?.name,
    tools: tools.tools.map((tool) => tool.name),
    "2 + 40": added.content[0].text,
    multiply: unknown,
  }));
} finally {
  await client.close();
}
