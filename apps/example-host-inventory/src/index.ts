// Public entry of @gatehouse/example-host-inventory.
export { buildServer, PERMISSIONS } from "./server.js";
export type { HostInventoryConfig } from "./server.js";
export { Inventory } from "./inventory.js";
export type { Host, SavedView } from "./inventory.js";
