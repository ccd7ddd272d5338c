import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { hugePagesEnvironment } from "../src/huge-pages.js";

describe("hugePagesEnvironment", () => {
  it("adds the tunable on Linux when GLIBC_TUNABLES names no hugetlb value, keeping other tunables", () => {
    expect(hugePagesEnvironment({ A: "1" }, "linux")).toEqual({ A: "1", GLIBC_TUNABLES: "glibc.malloc.hugetlb=1" });
    expect(hugePagesEnvironment({ GLIBC_TUNABLES: "glibc.malloc.arena_max=2" }, "linux")?.["GLIBC_TUNABLES"]).toBe("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
    // An unparsable opt-out is reported by the process's own settings; here it counts as unset.
    expect(hugePagesEnvironment({ GATEHOUSE_HUGE_PAGES: "maybe" }, "linux")?.["GLIBC_TUNABLES"]).toBe("glibc.malloc.hugetlb=1");
  });

  it("leaves the process as it is when set already (any value), opted out, or not on Linux", () => {
    expect(hugePagesEnvironment({ GLIBC_TUNABLES: "glibc.malloc.hugetlb=1" }, "linux")).toBeUndefined();
    expect(hugePagesEnvironment({ GLIBC_TUNABLES: "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=0" }, "linux")).toBeUndefined();
    for (const no of ["false", "0", "no", "off", "FALSE"]) expect(hugePagesEnvironment({ GATEHOUSE_HUGE_PAGES: no }, "linux")).toBeUndefined();
    expect(hugePagesEnvironment({}, "darwin")).toBeUndefined();
  });
});

const entry = fileURLToPath(new URL("./fixtures/relaunch-entry.ts", import.meta.url));

/** Runs the fixture entry; resolves with its report line and its exit code (no timer: on 'close'). */
function run(env: NodeJS.ProcessEnv, exitCode: number): Promise<{ launcher: number; code: number | null; report: { pid: number; ppid: number; tunables: string | null; argv: string[] } }> {
  const { GLIBC_TUNABLES: _, GATEHOUSE_HUGE_PAGES: __, ...base } = process.env;
  const child = spawn(process.execPath, ["--import", "tsx", entry, String(exitCode)], { env: { ...base, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ launcher: child.pid!, code, report: JSON.parse(out) }));
  });
}

describe.runIf(process.platform === "linux")("a process started through relaunchWithHugePages", () => {
  it("runs as a child started with the tunable, with the same arguments, and exits with its status", async () => {
    const { launcher, code, report } = await run({}, 7);
    expect(report.ppid).toBe(launcher);
    expect(report.pid).not.toBe(launcher);
    expect(report.tunables).toBe("glibc.malloc.hugetlb=1");
    expect(report.argv).toEqual(["7"]);
    expect(code).toBe(7);
  });

  it("keeps the operator's tunables and adds the hugetlb one", async () => {
    const { report } = await run({ GLIBC_TUNABLES: "glibc.malloc.arena_max=2" }, 0);
    expect(report.tunables).toBe("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
  });

  it("runs in place, unchanged, with GATEHOUSE_HUGE_PAGES=false or the tunable already set", async () => {
    const optedOut = await run({ GATEHOUSE_HUGE_PAGES: "false" }, 0);
    expect(optedOut.report.pid).toBe(optedOut.launcher);
    expect(optedOut.report.tunables).toBeNull();
    const already = await run({ GLIBC_TUNABLES: "glibc.malloc.hugetlb=1" }, 0);
    expect(already.report.pid).toBe(already.launcher);
    expect(already.report.tunables).toBe("glibc.malloc.hugetlb=1");
  });
});
