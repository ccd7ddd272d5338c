import type { Command } from "commander";

interface OrgModeFlags {
  url: string;
  activate?: boolean;
  requireParity?: boolean;
  json?: boolean;
}

interface OrgModeAnswer {
  org_id: string;
  mode: "v1" | "v2";
  v2_activated_at: string | null;
  parity_lost?: number;
  changed?: boolean;
}

/**
 * `gatehouse org-mode <org_id>`: shows an organisation's v1 / v2 mode, or activates v2 (v1 role
 * writes are refused from then on). It asks a running management API on this host (its operator
 * endpoint answers local callers only), which can first require the parity report to show no lost grant.
 */
export function registerOrgModeCommand(program: Command): void {
  program
    .command("org-mode")
    .description("Show an organisation's v1 / v2 mode, or activate v2 (through a management API on this host)")
    .argument("<org_id>", "the organisation")
    .option("--url <url>", "the management API (its operator endpoints answer local callers only)", "http://127.0.0.1:8000")
    .option("--activate", "switch the organisation to v2: v1 role writes are refused from then on (no way back)")
    .option("--require-parity", "with --activate: refuse while the parity report shows a v1 grant lost in v2")
    .option("--json", "print the answer as JSON")
    .action(async (orgId: string, flags: OrgModeFlags) => {
      const base = flags.url.replace(/\/+$/, "");
      const path = `/admin/orgs/${encodeURIComponent(orgId)}/mode${flags.activate ? `/v2${flags.requireParity ? "?require_parity=true" : ""}` : ""}`;
      const res = await fetch(base + path, { method: flags.activate ? "POST" : "GET" });
      const text = await res.text();
      if (!res.ok) {
        let detail = text.slice(0, 500);
        try {
          detail = (JSON.parse(text) as { detail?: string }).detail ?? detail;
        } catch {
          // not JSON: the text as is
        }
        process.stderr.write(`org-mode: ${res.status} ${detail}\n`);
        process.exitCode = 1;
        return;
      }
      const answer = JSON.parse(text) as OrgModeAnswer;
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
        return;
      }
      const since = answer.v2_activated_at ? ` (since ${answer.v2_activated_at})` : "";
      const parity = answer.parity_lost === undefined ? "" : `; parity: ${answer.parity_lost} lost grant(s)`;
      const change = answer.changed === undefined ? "" : answer.changed ? "; activated now" : "; was already v2";
      process.stdout.write(`${answer.org_id}: ${answer.mode}${since}${parity}${change}\n`);
    });
}
