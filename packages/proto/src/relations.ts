// kessel.relations.v1beta1 (KesselTupleService), re-exported as one namespace: its message names
// (Relationship, Consistency, ...) would collide with kessel.inventory's.
export {
  Consistency,
  ConsistencyToken,
  ObjectReference,
  ObjectType,
  Relationship,
  RequestPagination,
  ResponsePagination,
  SubjectReference,
} from "./gen/kessel/relations/v1beta1/common.js";
export {
  AcquireLockRequest,
  AcquireLockResponse,
  CreateTuplesRequest,
  CreateTuplesResponse,
  DeleteTuplesRequest,
  DeleteTuplesResponse,
  FencingCheck,
  KesselTupleServiceClient,
  KesselTupleServiceService,
  ReadTuplesRequest,
  ReadTuplesResponse,
  RelationTupleFilter,
  SubjectFilter,
} from "./gen/kessel/relations/v1beta1/relation_tuples.js";
export type { KesselTupleServiceServer } from "./gen/kessel/relations/v1beta1/relation_tuples.js";
