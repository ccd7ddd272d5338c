import type { Command } from "commander";
import { demoIdentityHeader } from "../start/banner.js";
import { QueryInputError } from "./query.js";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

interface ApiFlags {
  url: string;
  org?: string;
  user?: string;
  orgAdmin?: boolean;
  token?: string;
  data?: string;
}

/** The request `gatehouse api` sends; validated before anything is sent. */
export function apiRequest(method: string, path: string, flags: ApiFlags): { url: string; init: RequestInit } {
  const verb = method.toUpperCase();
  if (!(METHODS as readonly string[]).includes(verb)) throw new QueryInputError(`'${method.slice(0, 16)}' is not one of ${METHODS.join(", ")}`);
  if (!path.startsWith("/api/")) throw new QueryInputError("the path must start with /api/ (e.g. /api/rbac/v2/workspaces/)");
  if (flags.token && (flags.org || flags.user)) throw new QueryInputError("give either --token or --org and --user, not both");
  if (!flags.token && !(flags.org && flags.user)) throw new QueryInputError("give --org and --user (an identity, where the server trusts it) or --token");
  let body: string | undefined;
  if (flags.data !== undefined) {
    try {
      body = JSON.stringify(JSON.parse(flags.data));
    } catch {
      throw new QueryInputError("--data is not JSON");
    }
  }
  const headers: Record<string, string> = { accept: "application/json" };
  if (flags.token) headers["authorization"] = `Bearer ${flags.token}`;
  else headers["x-rh-identity"] = demoIdentityHeader(flags.org!, flags.user!, flags.orgAdmin ?? false);
  if (body !== undefined) headers["content-type"] = "application/json";
  return { url: new URL(path, flags.url).toString(), init: { method: verb, headers, ...(body !== undefined ? { body } : {}) } };
}

/** `gatehouse api <method> <path>`: one management API call, as the console shows it to copy. */
export function registerApiCommand(program: Command): void {
  program
    .command("api")
    .description("Send one management API call (the console shows each of its writes as this command) and print the answer")
    .argument("<method>", METHODS.join(", "))
    .argument("<path>", "path under the server, e.g. /api/rbac/v2/role-bindings:batchCreate/")
    .option("--url <url>", "management API address", "http://127.0.0.1:8000")
    .option("--org <org_id>", "identity: organisation id (x-rh-identity, where the server trusts it)")
    .option("--user <user_id>", "identity: user id")
    .option("--org-admin", "identity: an organisation administrator")
    .option("--token <token>", "a bearer token instead of an identity")
    .option("--data <json>", "request body (JSON)")
    .action(async (method: string, path: string, flags: ApiFlags) => {
      const { url, init } = apiRequest(method, path, flags);
      const res = await fetch(url, init);
      const text = await res.text();
      if (text) process.stdout.write(`${text}\n`);
      if (!res.ok) {
        process.stderr.write(`HTTP ${res.status}\n`);
        process.exitCode = 1;
      }
    });
}
