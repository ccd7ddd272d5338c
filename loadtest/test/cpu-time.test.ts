// Server CPU per request counts the spawned process's descendants: `gatehouse start` may run the
// server as its child (the huge-pages restart), and the parent alone is all but idle.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { expect, it } from "vitest";
import { cpuTimeMs } from "../src/server.ts";

it("adds the CPU time of the process's descendants to its own", async () => {
  // The child does a fixed amount of work (not time), reports its pid and CPU, then waits to be killed.
  const child = `let x = 0; for (let i = 0; i < 3e8; i++) x += i % 7; const u = process.cpuUsage(); console.log(JSON.stringify({ pid: process.pid, ms: (u.user + u.system) / 1000, x })); setInterval(() => {}, 1 << 30);`;
  const parentScript = `require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(child)}], { stdio: ["ignore", "inherit", "inherit"] }); setInterval(() => {}, 1 << 30);`;
  const parent = spawn(process.execPath, ["-e", parentScript], { stdio: ["ignore", "pipe", "inherit"] });
  let childPid: number | undefined;
  try {
    const [line] = (await once(parent.stdout!, "data")) as [Buffer];
    const report = JSON.parse(line.toString()) as { pid: number; ms: number };
    childPid = report.pid;
    // /proc counts in 10 ms ticks; the child's own figure is exact.
    expect(cpuTimeMs(parent.pid)).toBeGreaterThanOrEqual(report.ms - 20);
  } finally {
    if (childPid !== undefined) process.kill(childPid, "SIGKILL");
    parent.kill("SIGKILL");
  }
});
