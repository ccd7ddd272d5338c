// Operations behaviour through a real process and real HTTP: request ids, and a request in flight
// when SIGTERM arrives completing before the process exits.
import { spawn, type ChildProcess } from "node:child_process";
import { request as httpRequest } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { encodeIdentityHeader } from "@gatehouse/auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { V2, startApp, type TestApp } from "./helpers.js";

const appDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const identity = encodeIdentityHeader({ orgId: "o-life", userId: "admin", username: "admin", isOrgAdmin: true });

describe("request ids", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({}, { backend: "pglite" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("echoes the caller's x-request-id on success and on problem+json errors", async () => {
    const ok = await app.request("GET", `${V2}/workspaces/?limit=1`, { headers: { "x-request-id": "trace-me-1" } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-request-id")).toBe("trace-me-1");
    const notFound = await app.request("GET", `${V2}/nothing-here/`, { headers: { "x-request-id": "trace-me-2" } });
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get("x-request-id")).toBe("trace-me-2");
  });

  it("generates one when the caller sends none", async () => {
    const response = await app.request("GET", `${V2}/workspaces/?limit=1`);
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("SIGTERM", () => {
  let child: ChildProcess;
  let port = 0;
  let exited: Promise<number | null>;
  let stdout = "";
  const logWaiters = new Set<{ pattern: RegExp; resolve: () => void }>();
  /** Resolves once the server has printed a line matching `pattern` (already or later). */
  const logged = (pattern: RegExp) => new Promise<void>((resolve) => (pattern.test(stdout) ? resolve() : logWaiters.add({ pattern, resolve })));

  beforeAll(async () => {
    child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "src/main.ts"], {
      cwd: appDir,
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", DATABASE_URL: "", GATEHOUSE_DATA_DIR: "", SHUTDOWN_TIMEOUT_MS: "20000" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
    port = await new Promise<number>((resolve, reject) => {
      child.stdout!.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /"port":(\d+)[^\n]*management API listening/.exec(stdout);
        if (match) resolve(Number(match[1]));
        for (const waiter of [...logWaiters]) if (waiter.pattern.test(stdout)) logWaiters.delete(waiter), waiter.resolve();
      });
      child.once("exit", (code) => reject(new Error(`the server exited (${code}) before listening`)));
    });
  });

  afterAll(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });

  it("lets a request that is in flight finish, then exits 0", async () => {
    // A create whose body is still arriving when the signal comes. Ordered by events, not delays:
    // `Expect: 100-continue` makes the server confirm it has the request (it is in flight), and the
    // rest of the body goes only once the server has logged that it is draining.
    const body = JSON.stringify({ name: "drained", description: "sent across a SIGTERM" });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: `${V2}/workspaces/`,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), "x-rh-identity": identity, expect: "100-continue" },
        },
        (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => (text += chunk.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on("error", reject);
      req.once("continue", () => {
        req.write(body.slice(0, 10));
        child.kill("SIGTERM");
        void logged(/management API draining/).then(() => req.end(body.slice(10)));
      });
      req.flushHeaders();
    });
    const answered = await response;
    // The create itself is judged on its merits (here: no parent given); what matters is a whole answer.
    expect(answered.status).toBeGreaterThanOrEqual(200);
    expect(answered.status).toBeLessThan(500);
    expect(() => JSON.parse(answered.text)).not.toThrow();
    expect(await exited).toBe(0);
  });
});
