import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { connect, createServer as createNetServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connect as tlsConnect } from "node:tls";
import { createLogger, type LogRecord } from "../log.ts";
import { EgressPolicy, egressAllowed, installEgressGuard, parseDeclaration } from "./egress.ts";

describe("parseDeclaration and EgressPolicy", () => {
  it("reads host names, IPv4 and IPv6 with or without a port, and refuses what is not a host", () => {
    assert.deepEqual(parseDeclaration("Mail.Example.COM."), { host: "mail.example.com", port: null });
    assert.deepEqual(parseDeclaration("127.0.0.1:8080"), { host: "127.0.0.1", port: 8080 });
    assert.deepEqual(parseDeclaration("[::1]:443"), { host: "::1", port: 443 });
    assert.deepEqual(parseDeclaration("::1"), { host: "::1", port: null });
    for (const bad of ["", "a b", "host:0", "host:70000", "host:x", "[nothost]:1", "http://x", "x/y", "a".repeat(300)]) {
      assert.equal(parseDeclaration(bad), null, bad);
    }
  });
  it("allows a host on any port, or only on the ports declared with it", () => {
    const policy = new EgressPolicy(["any.example", "one.example:25", "one.example:587", "bad entry"]);
    assert.equal(policy.allows("ANY.example", 1), true);
    assert.equal(policy.allows("one.example", 587), true);
    assert.equal(policy.allows("one.example", 465), false);
    assert.equal(policy.allows("other.example", 25), false);
    assert.equal(policy.size, 2);
  });
});

describe("the guard in a process", () => {
  let dir: string;
  let file: string;
  let allowed: Server;
  let other: Server;
  let otherConnections = 0;
  const records: LogRecord[] = [];
  const portOf = (s: Server) => (s.address() as AddressInfo).port;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "charter-egress-"));
    file = join(dir, "egress.json");
    allowed = createServer((_req, res) => res.end("ok"));
    other = createServer((_req, res) => res.end("should not be reached"));
    other.on("connection", () => otherConnections++);
    await Promise.all([allowed, other].map((s) => new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve))));
    writeFileSync(file, JSON.stringify({ hosts: [`127.0.0.1:${portOf(allowed)}`] }));
    installEgressGuard(file, createLogger("test", (r) => records.push(r)));
  });
  after(() => {
    allowed.close();
    other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lets fetch reach a declared host and refuses an undeclared one, logging it", async () => {
    assert.equal(await (await fetch(`http://127.0.0.1:${portOf(allowed)}/`)).text(), "ok");
    const refused = await fetch(`http://127.0.0.1:${portOf(other)}/`).then(
      () => null,
      (error: unknown) => error as Error & { cause?: { code?: string } },
    );
    assert.equal(refused?.cause?.code, "EGRESS_REFUSED");
    assert.ok(records.some((r) => r.msg === "egress refused" && r.port === portOf(other)));
  });

  it("refuses through node:http, net.connect and tls.connect alike, and reaches nothing", async () => {
    const viaHttp = await new Promise<string>((resolve) => {
      const req = request({ host: "127.0.0.1", port: portOf(other), path: "/" }, () => resolve("answered"));
      req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "?"));
      req.end();
    });
    assert.equal(viaHttp, "EGRESS_REFUSED");
    for (const open of [() => connect(portOf(other), "127.0.0.1"), () => tlsConnect({ host: "localhost", port: portOf(other) })]) {
      const code = await new Promise<string>((resolve) => {
        const socket = open();
        socket.on("connect", () => resolve("connected"));
        socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "?"));
      });
      assert.equal(code, "EGRESS_REFUSED");
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(otherConnections, 0);
  });

  it("sees a host declared a moment ago, and a host taken out again", async () => {
    assert.equal(egressAllowed("127.0.0.1", portOf(other)), false);
    writeFileSync(file, JSON.stringify({ hosts: [`127.0.0.1:${portOf(allowed)}`, `127.0.0.1:${portOf(other)}`] }));
    assert.equal(await (await fetch(`http://127.0.0.1:${portOf(other)}/`)).text(), "should not be reached");
    writeFileSync(file, JSON.stringify({ hosts: [] }));
    // A host already allowed stays allowed until the file is read again (on the next miss).
    assert.equal(egressAllowed("example.invalid", 1), false);
    assert.equal(egressAllowed("127.0.0.1", portOf(other)), false);
  });

  it("lets a client that resolved a declared name itself connect to its address, and no other", async () => {
    writeFileSync(file, JSON.stringify({ hosts: [`localhost:${portOf(allowed)}`] }));
    egressAllowed("example.invalid", 1); // the file read again
    const connected = (port: number) =>
      new Promise<string>((resolve) => {
        const socket = connect(port, "127.0.0.1");
        socket.on("connect", () => {
          socket.destroy();
          resolve("connected");
        });
        socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "?"));
      });
    assert.equal(await connected(portOf(allowed)), "connected");
    assert.equal(await connected(portOf(other)), "EGRESS_REFUSED");
  });

  it("never touches a Unix socket", async () => {
    const path = join(dir, "s.sock");
    const server = createNetServer((socket) => socket.end("hi"));
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(path);
      let data = "";
      socket.on("data", (d) => (data += String(d)));
      socket.on("end", () => resolve(data));
      socket.on("error", reject);
    });
    server.close();
    assert.equal(text, "hi");
  });
});
