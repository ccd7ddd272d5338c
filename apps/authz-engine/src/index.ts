// Public entry of @gatehouse/authz-engine.
export { buildServer, type EngineServer } from "./server.js";
export { API_PREFIX as KESSEL_HTTP_PREFIX } from "./http/api.js";
export { resolveConfig, type EngineConfig, type AuthnConfig, type TlsConfig } from "./config.js";
export { EngineError, type EngineErrorCode } from "./errors.js";
export type { GraphSource, ResourceWriter, ChangeBatch, RelationshipChange } from "./graph/source.js";
export { parseReporters, type Reporters, type ReporterGrant } from "./commands/write-policy.js";
export { engineSettings } from "./settings.js";
export {
  fileCheckpointStore,
  databaseCheckpointStore,
  memoryCheckpointStore,
  encodeCheckpoint,
  decodeCheckpoint,
  loadCheckpoint,
  schemaHash,
  CheckpointError,
  CHECKPOINT_FORMAT_VERSION,
  type CheckpointStore,
  type CheckpointRead,
  type FileCheckpointOptions,
  type CheckpointRef,
  type CheckpointHeader,
  type CheckpointRejection,
} from "./graph/checkpoint.js";
