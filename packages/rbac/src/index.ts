// Public entry of @gatehouse/rbac: pure domain rules of the v1 → v2 migration.
export { RbacError, type RbacErrorCode } from "./errors.js";
export {
  formatV1Permission,
  grantsUserAccessAboveRead,
  normalizeNamePart,
  parseV1Permission,
  roleGrants,
  v1RelationName,
  v1ToV2PermissionName,
  v2Verb,
  validateHeldPermission,
  wildcardCandidates,
  type V1Permission,
} from "./permissions.js";
export {
  ACCESSIBLE_SHARE_THRESHOLD,
  advisePattern,
  decisionOrderPattern,
  fullTreePattern,
  PATTERN_NAMES,
  RESULT_COUNT_THRESHOLD,
  validateFacts,
  type AssetTypeFacts,
  type PatternAdvice,
  type PatternChoice,
  type PatternNumber,
} from "./patterns.js";
export {
  assetVerb,
  defaultAssetTypes,
  parseAssetTypes,
  type AssetType,
  type AssetTypeCatalog,
  type AssetVerbConfig,
} from "./asset-types.js";
export {
  principalSubject,
  translateRequest,
  type CheckRequestJson,
  type ResourceReference,
  type StreamedListObjectsRequestJson,
  type SubjectReference,
  type TranslatedRequest,
  type TranslationContext,
  type V1Request,
} from "./translation.js";
export {
  BINDING_LEVELS,
  highestLevel,
  LEVEL_LABELS,
  levelOfPattern,
  levelRank,
  levelsAbove,
  type BindingLevel,
} from "./levels.js";
export {
  diffDefaultRolePlans,
  permissionLevelsFromCatalog,
  planDefaultRoles,
  planRoleBinding,
  rolePartKey,
  type BindingPlan,
  type DefaultRoleChange,
  type DefaultRolesPlan,
  type DefaultScope,
  type OverGrant as PlannedOverGrant,
  type PermissionLevelOf,
  type PlannedBinding,
} from "./binding-plan.js";
export { isInventoryWorkspaceFilter, planV1RolePlacement, type V1AccessInput, type V1RolePlacement } from "./v1-placement.js";
export { deterministicId } from "./ids.js";
export {
  bindingTuples,
  groupMemberTuple,
  principalId,
  roleChildTuple,
  rolePermissionTuple,
  tenantResourceId,
  tenantTreeTuples,
  tupleKey,
  TYPES,
  type RelationshipTuple,
  type TenantIds,
} from "./tuples.js";
export {
  checkV1Export,
  DEFAULT_ACCESS_GROUP,
  DEFAULT_ADMIN_ACCESS_GROUP,
  roleKey,
  tenantRoleIndex,
  v1PermissionsOf,
  v1RolesOf,
  type V1Access,
  type V1Export,
  type V1Group,
  type V1Principal,
  type V1Role,
  type V1RoleSource,
  type V1Tenant,
} from "./v1-export.js";
export {
  planTenantMigration,
  platformRoleId,
  type PlannedGroup,
  type PlannedRole,
  type PlannedRoleBinding,
  type PlannedTargets,
  type TenantMigrationPlan,
  unlimitedPartRoleId,
} from "./migration-plan.js";
export {
  checkObjectFor,
  computeParity,
  type CheckFn,
  type ExplainFn,
  type ExtraGrant,
  type LostGrant,
  type ObjectRef,
  type OverGrant,
  type ParityInput,
  type ParityReport,
  type ParityTenant,
} from "./parity.js";
export {
  compareDecisions,
  createShadowRecorder,
  type ShadowContext,
  type ShadowCounters,
  type ShadowOutcome,
  type ShadowRecorder,
  type ShadowResult,
  type ShadowSink,
} from "./shadow.js";
export { grantedPermissions, planGrantFix, type FixRole, type FixRoleChoice, type GrantFix, type GrantFixInput, type HeldGrant } from "./grant-fix.js";
export { affectedMembers, changedRelationsOf, memberKey, type MemberKey } from "./schema-dependencies.js";
export {
  computeConfigImpact,
  diffSeededRoles,
  impactDigest,
  unacceptedImpact,
  v1PermissionsAffectedBy,
  type ConfigImpact,
  type ImpactExample,
  type ImpactInput,
  type ImpactPrincipal,
  type ImpactSide,
  type ImpactTenant,
  type OrganisationImpact,
  type PermissionImpact,
  type SeededRole,
  type SeededRoleChange,
  type UnverifiablePermission,
} from "./config-impact.js";
export { evaluateConfigImpact, reseedRelationships, subjectsOfTenants, type TenantSubjects, type ImpactRun, type ImpactRunInput, type ImpactRunSide, type PlatformParentRole, type ReseedInput, type SeededRoleRecord } from "./config-impact-run.js";
