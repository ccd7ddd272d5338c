// explain: the evaluation tree of one check. When access is granted the tree keeps the branches
// that granted it; when denied it shows everything that was tried (bounded), and the summary says
// what was missing, including the common case of a grant bound at another level of the hierarchy.
import type { RelationshipGraph } from "../graph/relationship-graph.js";
import type { Op } from "../model/model.js";
import { formatSubject, type ObjectRef, type SubjectRef } from "../relationship.js";
import { DEFAULT_MAX_DEPTH, Evaluation } from "./evaluation.js";
import { lookupResources } from "./lookup-resources.js";
import { resolvePermission, resolveSubject, resolveType } from "./subject.js";

export type ExplainKind = "permission" | "relation" | "union" | "intersection" | "exclusion" | "arrow" | "direct" | "wildcard" | "nil" | "truncated";

export interface ExplainNode {
  kind: ExplainKind;
  /** `type:id#name` for permissions/relations, the expression text for operators. */
  label: string;
  allowed: boolean;
  children: ExplainNode[];
  /** The relationship this node was reached through expires then (ms since the epoch). */
  expiresAt?: number;
}

export interface Explanation {
  allowed: boolean;
  tree: ExplainNode;
  summary: string;
}

const MAX_TREE_NODES = 500;

export function explain(graph: RelationshipGraph, resource: ObjectRef, permission: string, subject: SubjectRef, options?: { now?: number }): Explanation {
  if (graph.expiring > 0) graph.expire(options?.now ?? Date.now());
  const typeIndex = resolveType(graph, resource.type);
  const rootSlot = resolvePermission(graph, typeIndex, permission);
  const resolved = resolveSubject(graph, subject);
  const evaluation = new Evaluation(graph, resolved, DEFAULT_MAX_DEPTH);
  const { model } = graph;
  const label = (node: number, slot: number): string => evaluation.describe(node, slot);
  let budget = MAX_TREE_NODES;
  const onPath = new Set<number>();

  const slotNode = (node: number, slot: number): ExplainNode => {
    const allowed = evaluation.evalSlot(node, slot, 0);
    const s = model.slots[slot]!;
    const out: ExplainNode = { kind: s.stored ? "relation" : "permission", label: label(node, slot), allowed, children: [] };
    const key = node * model.slotCount + slot;
    if (--budget <= 0 || onPath.has(key)) return out;
    onPath.add(key);
    if (s.stored) out.children = directChildren(node, slot, allowed);
    else out.children = [opNode(s.op!, node)];
    onPath.delete(key);
    return out;
  };

  // When a node is true, keep only the children that make it true; when false, keep all of them.
  const keep = (allowed: boolean, children: ExplainNode[]): ExplainNode[] => {
    if (!allowed) return children;
    const granting = children.find((c) => c.allowed);
    return granting ? [granting] : children;
  };

  const directChildren = (node: number, slot: number, allowed: boolean): ExplainNode[] => {
    const children: ExplainNode[] = [];
    const forward = graph.forward[slot]!;
    const expiring = (child: ExplainNode, code: number): ExplainNode => {
      const at = graph.expiryOf(slot, node, code);
      return at === undefined ? child : { ...child, expiresAt: at };
    };
    if (forward.has(node, resolved.code)) children.push(expiring({ kind: "direct", label: `${label(node, slot)}@${formatSubject(subject)}`, allowed: true, children: [] }, resolved.code));
    if (resolved.wildcardNode >= 0 && forward.has(node, resolved.wildcardNode)) {
      children.push(expiring({ kind: "wildcard", label: `${label(node, slot)}@${subject.type}:*`, allowed: true, children: [] }, resolved.wildcardNode));
    }
    for (const code of graph.forwardSets[slot]?.get(node) ?? []) {
      const u = -code - 1;
      if (allowed && children.some((c) => c.allowed)) break;
      children.push(expiring(slotNode(graph.usersetNode[u]!, graph.usersetSlot[u]!), code));
    }
    return keep(allowed, children);
  };

  const opNode = (op: Op, node: number): ExplainNode => {
    switch (op.k) {
      case "slot":
        return slotNode(node, op.slot);
      case "nil":
        return { kind: "nil", label: "nil", allowed: false, children: [] };
      case "arrow": {
        const allowed = evaluation.evalOp(op, node, 0);
        const children: ExplainNode[] = [];
        for (const code of graph.forward[op.tupleset]!.get(node) ?? []) {
          const target = code >= 0 ? code : graph.usersetNode[-code - 1]!;
          const slot = op.targetByType[graph.nodeType[target]!]!;
          if (slot < 0) continue;
          if (budget <= 0) {
            children.push({ kind: "truncated", label: "…", allowed: false, children: [] });
            break;
          }
          children.push(slotNode(target, slot));
          if (allowed && children[children.length - 1]!.allowed) break;
        }
        return { kind: "arrow", label: op.label, allowed, children: keep(allowed, children) };
      }
      case "union": {
        const children = op.ops.map((c) => opNode(c, node));
        const allowed = children.some((c) => c.allowed);
        return { kind: "union", label: "+", allowed, children: keep(allowed, children) };
      }
      case "intersection": {
        const children = op.ops.map((c) => opNode(c, node));
        return { kind: "intersection", label: "&", allowed: children.every((c) => c.allowed), children };
      }
      case "exclusion": {
        const children = [opNode(op.left, node), opNode(op.right, node)];
        return { kind: "exclusion", label: "-", allowed: children[0]!.allowed && !children[1]!.allowed, children };
      }
    }
  };

  const rootNode = graph.nodeOf(typeIndex, resource.id);
  const rootLabel = `${resource.type}:${resource.id}#${permission}`;
  const tree: ExplainNode = rootNode < 0 ? { kind: model.slots[rootSlot]!.stored ? "relation" : "permission", label: rootLabel, allowed: false, children: [] } : slotNode(rootNode, rootSlot);
  const who = formatSubject(subject);
  if (tree.allowed) {
    const until = grantedUntil(tree);
    const expiry = until === undefined ? "" : ` (granted until ${new Date(until).toISOString()})`;
    return { allowed: true, tree, summary: `${who} holds ${rootLabel} via ${grantingPath(tree).join(" → ")}${expiry}` };
  }

  const reasons: string[] = [];
  if (rootNode < 0) reasons.push(`${resource.type}:${resource.id} appears in no relationship`);
  collectDenials(tree, reasons);
  const elsewhere = lookupResources(graph, resource.type, permission, subject);
  if (elsewhere.length > 0) {
    const sample = elsewhere.slice(0, 5).join(", ") + (elsewhere.length > 5 ? `, … (${elsewhere.length} in all)` : "");
    reasons.push(
      `${who} does hold ${permission} on other ${resource.type} objects (${sample}); grants inherit downward only, so a binding on a descendant or a sibling does not reach ${resource.type}:${resource.id}`,
    );
  }
  if (reasons.length === 0) reasons.push(`nothing grants ${permission} to ${who}`);
  return { allowed: false, tree, summary: `${who} does not hold ${rootLabel}: ${reasons.join("; ")}` };
}

/**
 * When the granting branch shown stops granting: the earliest expiry on it (every branch of an
 * intersection counts). Undefined when nothing on it expires.
 */
function grantedUntil(node: ExplainNode): number | undefined {
  const along = node.kind === "intersection" ? node.children : node.children.filter((c) => c.allowed).slice(0, 1);
  let until = node.expiresAt;
  for (const child of along) {
    const at = grantedUntil(child);
    if (at !== undefined && (until === undefined || at < until)) until = at;
  }
  return until;
}

/** Labels of the permissions and relations along the first granting branch. */
function grantingPath(node: ExplainNode): string[] {
  const here = node.kind === "permission" || node.kind === "relation" || node.kind === "direct" || node.kind === "wildcard" || node.kind === "arrow" ? [node.label] : [];
  if (node.kind === "intersection") return [...here, `(${node.children.map((c) => grantingPath(c).join(" → ")).join(" & ")})`];
  const next = node.children.find((c) => c.allowed);
  return next ? [...here, ...grantingPath(next)] : here;
}

/** Intersections and exclusions that failed on one side only: the answer to "what is missing". */
function collectDenials(node: ExplainNode, out: string[]): void {
  if (out.length >= 5) return;
  if (node.kind === "intersection" && node.children.some((c) => c.allowed)) {
    const held = node.children.filter((c) => c.allowed).map(firstLabel);
    const missing = node.children.filter((c) => !c.allowed).map(firstLabel);
    out.push(`has ${held.join(" and ")} but not ${missing.join(" and ")}`);
    return;
  }
  if (node.kind === "exclusion" && node.children[0]?.allowed) {
    out.push(`has ${firstLabel(node.children[0])} but is excluded by ${firstLabel(node.children[1]!)}`);
    return;
  }
  for (const c of node.children) collectDenials(c, out);
}

function firstLabel(node: ExplainNode): string {
  if (node.kind === "permission" || node.kind === "relation" || node.kind === "arrow") return node.label;
  return node.children[0] ? firstLabel(node.children[0]) : node.label;
}
