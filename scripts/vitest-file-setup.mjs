// Runs before every test file (vitest.shared.mjs `setupFiles`). A package's test files share one
// worker process and its loaded modules (`isolate: false`), so what a file may leave behind in the
// process is put back here: each file starts as it would in a process of its own.
import { afterAll, beforeAll, vi } from "vitest";

const reset = () => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
  vi.useRealTimers();
  // CLI tests read the exit code a command set; a code left by another file is not theirs.
  process.exitCode = undefined;
};

beforeAll(reset);
afterAll(reset);
