// Public entry of @gatehouse/example-host-inventory.
export { buildServer, MAX_PAGE_SIZE, PERMISSIONS } from "./server.js";
export type { HostInventoryConfig } from "./server.js";
export { Inventory } from "./inventory.js";
export type { Host, HostPage, SavedView, SqlClient } from "./inventory.js";
