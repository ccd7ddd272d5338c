// Process entry: read the environment, start the server, stop cleanly on signals.
import { startTracing } from "@gatehouse/telemetry";
import { configFromEnv, ConfigError, managementSettings, type ManagementApiConfig } from "./config.js";
import { buildServer } from "./server.js";

let config: ManagementApiConfig;
try {
  config = configFromEnv();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  // One line naming each bad variable, not a stack trace.
  console.error(error.message);
  process.exit(1);
}
// After validation, so a bad OTEL_* variable is reported like any other.
const tracing = startTracing("management-api", managementSettings.parse(process.env));
const server = buildServer(config);
// Installed before the start: a signal that arrives right after "listening" is logged (before the
// start's promise resumes here) must drain and exit 0, not kill the process by default.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server
      .stop()
      .then(() => tracing.shutdown())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  });
}
await server.start();
// SIGHUP: reload the role configuration (a refused or invalid one is logged; nothing changes).
process.on("SIGHUP", () => {
  server.reloadRoleConfiguration().catch((error: unknown) => console.error(`role configuration reload failed: ${error instanceof Error ? error.message : String(error)}`));
});
