// kessel.inventory.v1beta2.KesselTupleService and its messages, as one namespace: their names
// (Relationship, CreateTuplesRequest, ...) would collide with kessel.relations' and each other's.
export {
  AcquireLockRequest,
  AcquireLockResponse,
  CreateTuplesRequest,
  CreateTuplesResponse,
  DeleteTuplesRequest,
  DeleteTuplesResponse,
  KesselTupleServiceClient,
  KesselTupleServiceService,
  ReadTuplesRequest,
  ReadTuplesResponse,
  RelationFencingCheck,
  RelationObjectReference,
  RelationObjectType,
  RelationSubjectFilter,
  RelationSubjectReference,
  RelationTupleFilter,
  Relationship,
} from "./gen/kessel/inventory/v1beta2/tuple_service.js";
export type { KesselTupleServiceServer } from "./gen/kessel/inventory/v1beta2/tuple_service.js";
