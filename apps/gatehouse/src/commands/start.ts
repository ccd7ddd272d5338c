import type { Command } from "commander";
import { createLogger, startTracing } from "@gatehouse/telemetry";
import { PortInUseError, startGatehouse } from "../start/all-in-one.js";
import { startBanner } from "../start/banner.js";
import { resolveStartConfig, StartConfigError, startSettings, type StartFlags } from "../start/config.js";

export function registerStartCommand(program: Command): void {
  program
    .command("start")
    .description("Run management API, authz-engine and workspace-cache in one process (embedded PGlite and memory cache unless DATABASE_URL / REDIS_URL are set)")
    .option("--data-dir <dir>", "PGlite data directory (env GATEHOUSE_DATA_DIR)", undefined)
    .option("--http-port <port>", "management API port (env PORT, default 8000)")
    .option("--grpc-port <port>", "authz-engine gRPC port (env GRPC_PORT, default 9091)")
    .option("--cache-port <port>", "workspace-cache port (env WORKSPACE_CACHE_PORT, default 8001)")
    .option("--metrics-port <port>", "authz-engine HTTP port: HTTP/JSON checks, metrics (env METRICS_PORT, default 9092)")
    .option("--host <host>", "interface to listen on (env HOST, default 127.0.0.1)")
    .option("--no-seed", "do not seed the demo organisation")
    .option(
      "--role-config <dir>",
      "role-configuration directory, e.g. <rbac-config checkout>/configs/stage (env GATEHOUSE_ROLE_CONFIG; default: the built-in GATEHOUSE_ENV configuration; no demo organisation unless GATEHOUSE_SEED_DEMO=true)",
    )
    .action(async (flags: StartFlags) => {
      // info: one line per HTTP request and per gRPC call (LOG_LEVEL=warn quiets them).
      const logger = createLogger({ name: "gatehouse", level: process.env["LOG_LEVEL"] ?? "info" });
      let config;
      try {
        config = resolveStartConfig(flags);
      } catch (error) {
        if (error instanceof StartConfigError) return fail(error.message, 2);
        throw error;
      }
      // One tracer provider for the three services of this process (service.name "gatehouse").
      const tracing = startTracing("gatehouse", startSettings.parse(process.env));
      let running;
      try {
        running = await startGatehouse(config, logger);
      } catch (error) {
        if (error instanceof PortInUseError) return fail(error.message, 3);
        throw error;
      }
      process.stdout.write(startBanner(running, config));
      await new Promise<void>((resolve) => {
        let stopping = false;
        const shutdown = (signal: string): void => {
          if (stopping) return;
          stopping = true;
          process.stdout.write(`\n${signal} received: stopping (in-flight calls finish first)...\n`);
          running
            .stop()
            .then(() => tracing.shutdown())
            .then(
              () => {
                process.stdout.write("Gatehouse stopped.\n");
                resolve();
              },
              (error: unknown) => {
                console.error("Shutdown failed:", error);
                process.exitCode = 1;
                resolve();
              },
            );
        };
        // `on` (shutdown ignores repeats): under the huge-pages launcher (main.ts) a Ctrl+C reaches
        // this process twice, from the terminal and relayed.
        process.on("SIGINT", () => shutdown("SIGINT"));
        process.on("SIGTERM", () => shutdown("SIGTERM"));
      });
    });
}

function fail(message: string, code: number): void {
  console.error(`gatehouse start: ${message}`);
  process.exitCode = code;
}
