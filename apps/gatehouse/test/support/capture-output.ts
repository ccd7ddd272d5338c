// Captures what a CLI command writes to stdout/stderr in each test, and resets the exit code.
import { afterEach, beforeEach, vi } from "vitest";

export interface CapturedOutput {
  out: string;
  err: string;
}

/** Call at the top of a test file; the returned object holds the current test's output. */
export function captureOutput(): CapturedOutput {
  const captured: CapturedOutput = { out: "", err: "" };
  beforeEach(() => {
    captured.out = "";
    captured.err = "";
    process.exitCode = undefined;
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((captured.out += String(chunk)), true));
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => ((captured.err += String(chunk)), true));
  });
  afterEach(() => {
    vi.restoreAllMocks();
    process.exitCode = undefined;
  });
  return captured;
}
