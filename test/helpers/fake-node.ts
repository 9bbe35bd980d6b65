/**
 * @module A stand-in for a node's public routes (`/health`, `/.well-known/charter.json`) serving
 * given JSON, for testing how the console shows voters and connectivity — including the consensus
 * fields a three-voter node reports — without starting a cluster.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeNode {
  readonly url: string;
  close(): Promise<void>;
}

export async function startFakeNode(routes: { health: object; wellKnown: object; healthStatus?: number }): Promise<FakeNode> {
  const server: Server = createServer((req, res) => {
    const body = req.url === "/health" ? routes.health : req.url === "/.well-known/charter.json" ? routes.wellKnown : null;
    res.writeHead(body === null ? 404 : req.url === "/health" ? (routes.healthStatus ?? 200) : 200, { "content-type": "application/json" });
    res.end(JSON.stringify(body ?? { status: 404 }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A URL on 127.0.0.1 where nothing listens (a port just released). */
export async function closedUrl(): Promise<string> {
  const node = await startFakeNode({ health: {}, wellKnown: {} });
  await node.close();
  return node.url;
}
