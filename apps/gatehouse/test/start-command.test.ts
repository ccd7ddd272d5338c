// `gatehouse start` as a person runs it: a real child process, signals, a data directory reused
// across restarts, and a clear message when a port is taken.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dataDir = mkdtempSync(path.join(tmpdir(), "gatehouse-start-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Run {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<number | null>;
}

function start(ports: number[]): Run {
  const [http, grpc, cache, metrics] = ports.map(String);
  const child = spawn(
    process.execPath,
    ["--conditions=source", "--import", "tsx", "src/main.ts", "start", "--data-dir", dataDir, "--http-port", http!, "--grpc-port", grpc!, "--cache-port", cache!, "--metrics-port", metrics!],
    { cwd: appDir, env: { ...process.env, DATABASE_URL: "", REDIS_URL: "", LOG_LEVEL: "error" } },
  );
  let text = "";
  child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => text, exited };
}

async function until(run: Run, marker: string, timeoutMs = 90_000): Promise<void> {
  while (!run.output().includes(marker)) {
    if (run.child.exitCode !== null) throw new Error(`exited early:\n${run.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("gatehouse start", () => {
  it("seeds on first start, stops cleanly on SIGINT, reuses the data on the next start, and names a taken port", async () => {
    const ports = await Promise.all([freePort(), freePort(), freePort(), freePort()]);

    const first = start(ports);
    await until(first, "Press Ctrl+C to stop.");
    expect(first.output()).toContain("Demo organisation 12345 (seeded now)");
    expect(first.output()).toContain(`http://127.0.0.1:${ports[0]}/api/rbac/v2/`);
    const workspaces = await fetch(`http://127.0.0.1:${ports[0]}/api/rbac/v2/workspaces/?type=root`, {
      headers: { "x-rh-identity": Buffer.from(JSON.stringify({ identity: { org_id: "12345", type: "User", user: { user_id: "alice", username: "alice", is_org_admin: true } } })).toString("base64") },
    });
    expect(workspaces.status).toBe(200);

    // A second server on the same ports gets a clear message and a non-zero exit, not a stack trace.
    const clash = start(ports);
    expect(await clash.exited).toBe(3);
    expect(clash.output()).toMatch(new RegExp(`Port ${ports[0]} \\(management API\\) is already in use`));

    first.child.kill("SIGINT");
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain("Gatehouse stopped.");

    const second = start(ports);
    await until(second, "Press Ctrl+C to stop.");
    expect(second.output()).toContain("Demo organisation 12345 (already present)");
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  it("refuses an invalid port with exit code 2", async () => {
    const run = start([70000, 1, 2, 3]);
    expect(await run.exited).toBe(2);
    expect(run.output()).toContain("must be a port number between 0 and 65535");
  });
});
