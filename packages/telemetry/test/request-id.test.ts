import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { pino, type Logger } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpRequestLogger, requestIdOf } from "@gatehouse/telemetry";

describe("requestIdOf", () => {
  it("keeps a short plain id and replaces anything else with a UUID", () => {
    expect(requestIdOf("abc-123_X.y:z")).toBe("abc-123_X.y:z");
    expect(requestIdOf(["first", "second"])).toBe("first");
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    for (const bad of [undefined, "", "x".repeat(129), "has space", "new\nline", 42]) expect(requestIdOf(bad)).toMatch(uuid);
  });
});

describe("httpRequestLogger", () => {
  const lines: Record<string, unknown>[] = [];
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split("\n")) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const logRequest = httpRequestLogger(pino({ level: "info" }, sink));
    server = createServer((req, res) => {
      logRequest(req, res);
      (req as unknown as { log: Logger }).log.info("handled");
      res.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const linesOf = (id: string) => lines.filter((line) => line["reqId"] === id);

  it("echoes the caller's id and puts it on every line of the request", async () => {
    const response = await fetch(`${base}/things?x=1`, { headers: { "x-request-id": "caller-42" } });
    expect(response.headers.get("x-request-id")).toBe("caller-42");
    await expect.poll(() => linesOf("caller-42").length).toBe(2);
    const [handled, completed] = linesOf("caller-42");
    expect(handled).toMatchObject({ msg: "handled" });
    expect(completed).toMatchObject({ msg: "request completed", req: { method: "GET", path: "/things" }, res: { status: 200 } });
  });

  it("accepts the insights gateway header, and generates an id when none (or a bad one) is sent", async () => {
    expect((await fetch(base, { headers: { "x-rh-insights-request-id": "gw-7" } })).headers.get("x-request-id")).toBe("gw-7");
    const generated = (await fetch(base)).headers.get("x-request-id");
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);
    const replaced = (await fetch(base, { headers: { "x-request-id": "x".repeat(500) } })).headers.get("x-request-id");
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
    await expect.poll(() => linesOf(generated!).length).toBe(2);
  });

  it("does not log probes and scrapes", async () => {
    const before = lines.length;
    await fetch(`${base}/readyz`);
    await fetch(`${base}/metrics`);
    // Only the handler's own lines, no "request completed".
    await expect.poll(() => lines.length - before).toBe(2);
    expect(lines.slice(before).every((line) => line["msg"] === "handled")).toBe(true);
  });
});
