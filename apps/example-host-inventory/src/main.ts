// Process entry: the SDK reads AUTHZ_* from the environment; the inventory starts empty.
import { createAuthzClient } from "@gatehouse/client";
import { Inventory } from "./inventory.js";
import { buildServer } from "./server.js";

const server = buildServer({ port: Number(process.env["PORT"] ?? 8002), authz: createAuthzClient(), inventory: new Inventory() });
await server.start();
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void server.stop().finally(() => process.exit(0)));
