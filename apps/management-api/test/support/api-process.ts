// The management API as a separate process (src/main.ts through tsx), as it is deployed: a crash
// ends the process instead of failing a test runner, and its log lines can be read.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export interface ApiProcess {
  baseUrl: string;
  /** Parsed pino lines seen so far (stdout); other output is kept as text. */
  logs(): LogLine[];
  output(): string;
  /** Resolves with the first log line (seen or still to come) that matches; rejects if the process exits first. */
  waitForLog(matches: (line: LogLine) => boolean): Promise<LogLine>;
  /** Rejects (with the process's output) when the process exits; never resolves. */
  died: Promise<never>;
  /** null while the process runs. */
  exitCode(): number | string | null;
  stop(): Promise<void>;
}

export async function spawnManagementApi(env: Record<string, string>): Promise<ApiProcess> {
  const child: ChildProcess = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "src/main.ts"], {
    cwd: appDir,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", GATEHOUSE_DATA_DIR: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: LogLine[] = [];
  let text = "";
  let pending = "";
  let exit: number | string | null = null;
  let onListening: ((port: number) => void) | null = null;
  let logWaiters: { matches: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];
  let onExit: (() => void) | null = null;
  child.stdout!.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      text += `${line}\n`;
      try {
        const parsed = JSON.parse(line) as LogLine;
        logs.push(parsed);
        logWaiters = logWaiters.filter((w) => {
          if (!w.matches(parsed)) return true;
          w.resolve(parsed);
          return false;
        });
        if (parsed.msg === "management API listening" && typeof parsed["port"] === "number") onListening?.(parsed["port"]);
      } catch {
        // not a log line
      }
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exit = code ?? signal ?? "unknown";
      onExit?.();
      resolve();
    });
  });
  const died = exited.then(() => {
    throw new Error(`the management API exited (${String(exit)}):\n${text.slice(-4000)}`);
  });
  died.catch(() => undefined);
  const port = await new Promise<number>((resolve, reject) => {
    onListening = resolve;
    onExit = () => reject(new Error(`the management API exited before listening:\n${text}`));
  });
  onExit = null;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    logs: () => logs,
    output: () => text,
    exitCode: () => exit,
    died,
    waitForLog(matches) {
      const seen = logs.find(matches);
      if (seen) return Promise.resolve(seen);
      return Promise.race([died, new Promise<LogLine>((resolve) => logWaiters.push({ matches, resolve }))]);
    },
    async stop() {
      if (exit !== null) return;
      child.kill("SIGTERM");
      await exited;
    },
  };
}
