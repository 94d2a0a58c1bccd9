// A local MCP server over streamable HTTP for tests, in stateless mode: a fresh SDK server and transport
// per request, as the SDK documents.
//
//   const mcp = await startMcpHttp(createMcpServer);   // the factory of an .mjs fixture server
//   ... loadToolset(`mcp:${mcp.url}`, ...) ...
//   await mcp.close();                                  // always, in afterAll/finally
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface McpHttpServer {
  /** `http://127.0.0.1:PORT/mcp`. */
  url: string;
  close(): Promise<void>;
}

export async function startMcpHttp(createMcpServer: () => Pick<McpServer, 'connect' | 'close'>): Promise<McpHttpServer> {
  const http: Server = createServer(async (req, res) => {
    const server = createMcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    async close() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
