// The alert rules and the dashboard of infra/observability, deployed with the services: a
// PrometheusRule (prometheus-operator, as OpenShift's user-workload monitoring reads it) and a
// ConfigMap labelled for Grafana's dashboard sidecar. The ServiceMonitors are per service
// (service-component.ts). The files are read at run time, so the deployed rules are the tested ones.
import { readFileSync } from "node:fs";
import * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import { parse } from "yaml";

const OBSERVABILITY_DIR = new URL("../../observability/", import.meta.url);

/** The label Grafana's sidecar watches to load a ConfigMap as a dashboard. */
export const DASHBOARD_LABEL = { grafana_dashboard: "1" };

export function monitoring(namespace: pulumi.Input<string>, labels: Record<string, string>, opts: pulumi.CustomResourceOptions): pulumi.CustomResource[] {
  const rules = parse(readFileSync(new URL("prometheus-rules.yaml", OBSERVABILITY_DIR), "utf8")) as { groups: unknown[] };
  const dashboard = readFileSync(new URL("grafana-dashboard.json", OBSERVABILITY_DIR), "utf8");
  const prometheusRule = new k8s.apiextensions.CustomResource(
    "gatehouse",
    { apiVersion: "monitoring.coreos.com/v1", kind: "PrometheusRule", metadata: { name: "gatehouse", namespace, labels }, spec: { groups: rules.groups } },
    opts,
  );
  const dashboardMap = new k8s.core.v1.ConfigMap(
    "gatehouse-dashboard",
    { metadata: { name: "gatehouse-dashboard", namespace, labels: { ...labels, ...DASHBOARD_LABEL } }, data: { "gatehouse.json": dashboard } },
    opts,
  );
  return [prometheusRule, dashboardMap];
}
