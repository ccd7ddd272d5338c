// Process entry: read the environment, start the server, stop cleanly on signals.
import { configFromEnv } from "./config.js";
import { buildServer } from "./server.js";

const server = buildServer(configFromEnv());
await server.start();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
