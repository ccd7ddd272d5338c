import type { Relationship } from "@gatehouse/evaluator";

/** One committed change of the relationship set, in commit order. */
export interface RelationshipChange {
  op: "add" | "remove";
  relationship: Relationship;
}

/** Everything one commit changed. */
export interface ChangeBatch {
  revision: number;
  changes: RelationshipChange[];
  /**
   * When the commit was written, by the database's clock (`gh_changes.committed_at`, whole
   * milliseconds); absent when the source does not know. Used for the apply-lag metric only.
   */
  committed?: Date;
  /** `role_config` when the commit switched the active role configuration (a reload). */
  kind?: string;
}

export interface FollowHandle {
  stop(): Promise<void> | void;
}

/**
 * What the engine reads from the store: a snapshot, the change feed after it, the head revision
 * and the consistency-token codec. `openStoreSource` adapts `@gatehouse/store`.
 */
export interface GraphSource {
  /** Every relationship as of one revision, in batches; resolves with that revision. */
  snapshot(onBatch: (relationships: Relationship[]) => void): Promise<{ revision: number }>;
  /**
   * Calls onCommit for every commit after fromRevision, in order, never twice, until stopped.
   * onTruncated: the feed no longer holds the next changes (retention); the follow has stopped.
   */
  follow(fromRevision: number, onCommit: (batch: ChangeBatch) => void, onTransientError: (error: unknown) => void, onTruncated?: (error: unknown) => void): FollowHandle;
  headRevision(): Promise<number>;
  /** The highest revision the feed's retention deleted (0: none): a start below it needs the snapshot. */
  prunedThrough?(): Promise<number>;
  /** The zed text of the active role configuration, once a reload has recorded one. */
  activeSchema?(): Promise<string | undefined>;
  encodeToken(revision: number): string;
  /** Throws on a malformed or foreign token. */
  decodeToken(token: string): number;
}

/** What ReportResource/DeleteResource write; each call is one store transaction. */
export interface ResourceWriter {
  /** Creates or moves a host into a workspace of the tenant. */
  reportHost(orgId: string, hostId: string, workspaceId: string): Promise<number>;
  /** Throws a not-found error when the tenant has no such host. */
  deleteHost(orgId: string, hostId: string): Promise<number>;
  /** Raw tuple write (deletes applied first) for resource types other than hosts. */
  writeRelationships(orgId: string, write: { touch: Relationship[]; delete: Relationship[] }): Promise<number>;
  /**
   * Holds a report into a workspace id nobody has created: placed when the workspace appears, in
   * its tenant, if that is the reporter's (when known). false = the workspace exists after all.
   */
  holdPlacement(resource: { type: string; id: string }, workspaceId: string, reporterOrg: string | null, foreignWorkspace?: boolean): Promise<{ held: boolean; revision: number }>;
  /** Drops a held report; false when none is held (for this reporter's tenant). */
  releasePlacement(resource: { type: string; id: string }, reporterOrg: string | null): Promise<boolean>;
}
