// Pointed at a stack that is not there, the driver says so (which service, which address, what to
// do) and exits non-zero before generating anything.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dataDir = mkdtempSync(path.join(os.tmpdir(), "gatehouse-loadtest-dead-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function driver(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", "src/cli.ts", ...args], { cwd: root }, (error, out, err) => resolve({ code: error ? Number(error.code ?? -1) : 0, out, err }));
  });
}

describe("the driver against a dead server", () => {
  for (const command of ["drive", "smoke"]) {
    it(`${command} exits 1 and names the unreachable service`, async () => {
      const port = await closedPort();
      const run = await driver([
        command,
        "--http-url",
        `http://127.0.0.1:${port}`,
        "--grpc-target",
        `127.0.0.1:${port}`,
        "--store",
        "pglite",
        "--data-dir",
        dataDir,
        "--app-db",
        "pglite:memory",
        "--no-progress",
      ]);
      expect(run.code).toBe(1);
      expect(run.err).toContain(`cannot reach the management API at http://127.0.0.1:${port} (ECONNREFUSED)`);
      expect(run.err).toContain("is the stack running");
      expect(run.out).not.toContain("passed");
    });
  }
});
