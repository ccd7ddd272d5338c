// Public entry of @gatehouse/proto: the generated kessel.inventory messages, services and clients.
// Everything under src/gen is produced by `pnpm generate` (buf + ts-proto) and never edited by hand.
export {
  Allowed,
  WriteVisibility,
  allowedFromJSON,
  allowedToJSON,
  writeVisibilityFromJSON,
  writeVisibilityToJSON,
} from "./gen/kessel/inventory/v1beta2/enums.js";
export {
  ReporterReference,
  ResourceReference,
  SubjectReference,
  RepresentationType,
} from "./gen/kessel/inventory/v1beta2/references.js";
export { Consistency, ConsistencyToken } from "./gen/kessel/inventory/v1beta2/consistency.js";
export { RequestPagination, ResponsePagination } from "./gen/kessel/inventory/v1beta2/pagination.js";
export {
  CheckRequest,
  CheckResponse,
  CheckForUpdateRequest,
  CheckForUpdateResponse,
  CheckSelfRequest,
  CheckSelfResponse,
} from "./gen/kessel/inventory/v1beta2/check.js";
export {
  CheckBulkRequest,
  CheckBulkRequestItem,
  CheckBulkResponse,
  CheckBulkResponseItem,
  CheckBulkResponsePair,
  CheckForUpdateBulkRequest,
  CheckForUpdateBulkResponse,
  CheckForUpdateBulkResponseItem,
  CheckForUpdateBulkResponsePair,
  CheckSelfBulkRequest,
  CheckSelfBulkRequestItem,
  CheckSelfBulkResponse,
  CheckSelfBulkResponseItem,
  CheckSelfBulkResponsePair,
} from "./gen/kessel/inventory/v1beta2/check_bulk.js";
export {
  StreamedListObjectsRequest,
  StreamedListObjectsResponse,
  StreamedListSubjectsRequest,
  StreamedListSubjectsResponse,
} from "./gen/kessel/inventory/v1beta2/streamed_list.js";
export {
  RepresentationMetadata,
  ResourceRepresentations,
  ReportResourceRequest,
  ReportResourceResponse,
  DeleteResourceRequest,
  DeleteResourceResponse,
} from "./gen/kessel/inventory/v1beta2/resources.js";
export {
  KesselInventoryServiceService,
  KesselInventoryServiceClient,
  type KesselInventoryServiceServer,
} from "./gen/kessel/inventory/v1beta2/inventory_service.js";
export {
  GetLivezRequest,
  GetLivezResponse,
  GetReadyzRequest,
  GetReadyzResponse,
  KesselInventoryHealthServiceService,
  KesselInventoryHealthServiceClient,
  type KesselInventoryHealthServiceServer,
} from "./gen/kessel/inventory/v1/health.js";
export {
  HealthCheckRequest,
  HealthCheckResponse,
  HealthCheckResponse_ServingStatus,
  HealthListRequest,
  HealthListResponse,
  HealthService,
  HealthClient,
  type HealthServer,
} from "./gen/grpc/health/v1/health.js";
export { Status } from "./gen/google/rpc/status.js";
export * as relations from "./relations.js";
export * as inventoryTuples from "./inventory-tuples.js";
export { protoJsonCodec, ProtoJsonError, type BinaryMessageFns, type ProtoJsonCodec } from "./json.js";

/**
 * The `.proto` sources these messages were generated from (shipped with the package), for servers
 * that describe themselves at run time (gRPC server reflection).
 */
export const PROTO_DIR = new URL("../proto/", import.meta.url);
/** The files declaring the services Gatehouse serves, relative to PROTO_DIR. */
export const SERVICE_PROTO_FILES = [
  "kessel/inventory/v1beta2/inventory_service.proto",
  "kessel/inventory/v1/health.proto",
  "kessel/relations/v1beta1/relation_tuples.proto",
  "kessel/inventory/v1beta2/tuple_service.proto",
  "grpc/health/v1/health.proto",
] as const;
