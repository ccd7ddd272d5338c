// Huge pages for the engine's graph by default. glibc reads GLIBC_TUNABLES once, when the process
// starts, so setting it in process.env afterwards changes nothing for this process: a launcher
// that finds it missing starts the same command once more with it set, passes stdio, signals and
// the exit status through, and does nothing else. With `glibc.malloc.hugetlb=1`, glibc asks the
// kernel for transparent huge pages (madvise) for its large allocations, which hold the graph's
// typed arrays (docs/SCALING.md has the measurements). Elsewhere than Linux, or when the variable
// already names the tunable, or with GATEHOUSE_HUGE_PAGES=false, the process simply runs.
import { spawn } from "node:child_process";
import { hugePagesSettings } from "./shared.js";

export const HUGE_PAGES_TUNABLE = "glibc.malloc.hugetlb=1";

/** The environment the process should run with, or undefined if it already runs as it should. */
export function hugePagesEnvironment(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): NodeJS.ProcessEnv | undefined {
  if (platform !== "linux") return undefined;
  // An invalid value is left for the process's own settings to report; here it counts as unset.
  const wanted = hugePagesSettings.GATEHOUSE_HUGE_PAGES.schema.safeParse(env["GATEHOUSE_HUGE_PAGES"]);
  if (wanted.success && !wanted.data) return undefined;
  const tunables = env["GLIBC_TUNABLES"] ?? "";
  // Any hugetlb value the operator chose (0 included) is theirs to keep.
  if (tunables.split(":").some((t) => t.trim().startsWith("glibc.malloc.hugetlb="))) return undefined;
  return { ...env, GLIBC_TUNABLES: tunables ? `${tunables}:${HUGE_PAGES_TUNABLE}` : HUGE_PAGES_TUNABLE };
}

/**
 * If this process should run with huge pages and does not, starts the same command (same Node,
 * flags and arguments) with them, relays signals to it and exits with its status; returns true,
 * and the caller must then do nothing more. Returns false when this process should simply run.
 */
export function relaunchWithHugePages(): boolean {
  const env = hugePagesEnvironment(process.env);
  if (!env) return false;
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { env, stdio: "inherit" });
  const relay = (signal: NodeJS.Signals) => () => {
    child.kill(signal);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGUSR2"] as const) process.on(signal, relay(signal));
  child.on("error", (error) => {
    // Could not start it (out of processes, the binary gone): say how to run without it.
    console.error(`could not restart with ${HUGE_PAGES_TUNABLE} (${error.message}); set GATEHOUSE_HUGE_PAGES=false to skip this`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    if (signal) {
      // Die of the same signal, so whoever started this sees what happened to the child.
      for (const s of ["SIGINT", "SIGTERM", "SIGHUP", "SIGUSR2"]) process.removeAllListeners(s);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
  return true;
}
