// `gatehouse api`: the console's copyable CLI form of a management API call.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildProgram } from "../src/program.js";

describe("gatehouse api", () => {
  let server: Server;
  let base: string;
  const seen: { method: string; url: string; headers: IncomingMessage["headers"]; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
        res.writeHead(req.url?.includes("missing") ? 404 : 201, { "content-type": "application/json" }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const run = (...args: string[]) => buildProgram().parseAsync(["node", "gatehouse", "api", ...args]);

  it("sends the method, path, identity and JSON body given, and prints the answer", async () => {
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      await run("post", "/api/rbac/v2/role-bindings:batchCreate/", "--url", base, "--org", "12345", "--user", "alice", "--org-admin", "--data", '{"requests":[]}');
      expect(out).toHaveBeenCalledWith('{"ok":true}\n');
    } finally {
      out.mockRestore();
    }
    const req = seen.at(-1)!;
    expect(req.method).toBe("POST");
    expect(req.url).toBe("/api/rbac/v2/role-bindings:batchCreate/");
    expect(JSON.parse(req.body)).toEqual({ requests: [] });
    expect(req.headers["content-type"]).toBe("application/json");
    const identity = JSON.parse(Buffer.from(String(req.headers["x-rh-identity"]), "base64").toString());
    expect(identity.identity).toMatchObject({ org_id: "12345", user: { user_id: "alice", is_org_admin: true } });
  });

  it("is not an administrator unless asked, and a bearer token replaces the identity", async () => {
    await run("GET", "/api/rbac/v2/workspaces/", "--url", base, "--org", "12345", "--user", "dave");
    const identity = JSON.parse(Buffer.from(String(seen.at(-1)!.headers["x-rh-identity"]), "base64").toString());
    expect(identity.identity.user.is_org_admin).toBe(false);
    await run("GET", "/api/rbac/v2/workspaces/", "--url", base, "--token", "t0k");
    expect(seen.at(-1)!.headers["authorization"]).toBe("Bearer t0k");
    expect(seen.at(-1)!.headers["x-rh-identity"]).toBeUndefined();
  });

  it("fails on an error answer, and refuses bad input before sending anything", async () => {
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      await run("DELETE", "/api/rbac/v2/missing/", "--url", base, "--org", "1", "--user", "u");
      expect(process.exitCode).toBe(1);
    } finally {
      process.exitCode = undefined;
      err.mockRestore();
    }
    const before = seen.length;
    await expect(run("FETCH", "/api/x/", "--url", base, "--org", "1", "--user", "u")).rejects.toThrow(/is not one of/);
    await expect(run("GET", "/etc/passwd", "--url", base, "--org", "1", "--user", "u")).rejects.toThrow(/must start with \/api\//);
    await expect(run("POST", "/api/x/", "--url", base, "--org", "1", "--user", "u", "--data", "{")).rejects.toThrow(/not JSON/);
    await expect(run("GET", "/api/x/", "--url", base)).rejects.toThrow(/--org and --user/);
    expect(seen.length).toBe(before);
  });
});
