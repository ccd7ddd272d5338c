// Typed-enough accessors for the rendered Kubernetes objects the tests inspect.
import { expect } from "vitest";
import type { K8sObject, Run } from "./mocks.js";

export type { K8sObject };

export function get(run: Run, kind: string, name: string): K8sObject {
  const obj = run.objects.get(`${kind}/${name}`);
  if (!obj) throw new Error(`${run.stack}: no ${kind}/${name}; have ${[...run.objects.keys()].join(", ")}`);
  return obj;
}

export function byKind(run: Run, kind: string): K8sObject[] {
  return [...run.objects.values()].filter((o) => o["kind"] === kind);
}

export function container(run: Run, name: string): K8sObject {
  const pod = get(run, "Deployment", name).spec.template.spec;
  expect(pod.containers).toHaveLength(1);
  return pod.containers[0];
}

export function envOf(run: Run, name: string): Map<string, K8sObject> {
  return new Map(container(run, name).env.map((e: K8sObject) => [e.name, e]));
}

/** A container port given by number or by name, as a number. */
export function portNumber(c: K8sObject, port: number | string): number {
  if (typeof port === "number") return port;
  const found = c.ports.find((p: K8sObject) => p.name === port);
  if (!found) throw new Error(`container ${c.name} has no port named ${port}`);
  return found.containerPort;
}

/** One NetworkPolicy peer in the vocabulary of `SERVICES[...].callers`. */
export function describePeer(peer: K8sObject): string {
  const ns = peer.namespaceSelector;
  const pods = peer.podSelector?.matchLabels ?? {};
  if (ns && Object.keys(ns).length === 0 && pods["gatehouse.io/authz-client"] === "true") return "authz-clients";
  if (ns?.matchLabels?.["kubernetes.io/metadata.name"] && !peer.podSelector) return `namespace:${ns.matchLabels["kubernetes.io/metadata.name"]}`;
  if (!ns && pods["app.kubernetes.io/part-of"] === "gatehouse" && pods["app.kubernetes.io/name"]) return `gatehouse:${pods["app.kubernetes.io/name"]}`;
  throw new Error(`unexpected NetworkPolicy peer ${JSON.stringify(peer)}`);
}
