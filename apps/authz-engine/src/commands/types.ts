/** A resource as the evaluator names it: definition `<reporter>/<type>` and id. */
export interface ObjectRef {
  type: string;
  id: string;
}

export interface SubjectRef extends ObjectRef {
  relation?: string;
}

export type ConsistencyRequirement = { kind: "minimize-latency" } | { kind: "at-least-as-fresh"; token: string } | { kind: "fully-consistent" };

export interface CheckTarget {
  resource: ObjectRef;
  permission: string;
  subject: SubjectRef;
}
