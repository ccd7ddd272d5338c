import type { Command } from "commander";
import { registerAdvise } from "./advise.js";
import { registerApiCommand } from "./api.js";
import { registerConfigImpact } from "./config-impact.js";
import { registerImportHosts } from "./import-hosts.js";
import { registerMigrate } from "./migrate.js";
import { registerOrgModeCommand } from "./org-mode.js";
import { registerParity } from "./parity.js";
import { registerQueryCommands } from "./query.js";
import { registerRolesCommand } from "./roles.js";
import { registerSchemaCommand } from "./schema.js";
import { registerStartCommand } from "./start.js";

/** A sub-command registers itself on the root program. */
export type RegisterCommand = (program: Command) => void;

// One line per command module (keep sorted).
export const commands: RegisterCommand[] = [
  registerAdvise,
  registerApiCommand,
  registerConfigImpact,
  registerImportHosts,
  registerMigrate,
  registerOrgModeCommand,
  registerParity,
  registerQueryCommands,
  registerRolesCommand,
  registerSchemaCommand,
  registerStartCommand,
];
