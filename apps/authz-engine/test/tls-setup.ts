// Global setup: a throw-away CA and a server certificate for localhost/127.0.0.1, made with openssl
// for this run only (no private key is committed). The CA is trusted by the test workers through
// NODE_EXTRA_CA_CERTS: the Kessel SDK only talks to an https issuer, and Node reads that variable
// at process start, so it must be set before vitest forks its workers.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** Directory with ca.pem, server.pem, server-key.pem (signed by ca.pem) and other-ca.pem (trusted by nobody). */
    tlsDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), "authz-engine-tls-"));
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  const ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl("req", "-x509", ...ecKey, "-subj", "/CN=Gatehouse test CA", "-days", "1", "-keyout", "ca-key.pem", "-out", "ca.pem");
  openssl("req", "-x509", ...ecKey, "-subj", "/CN=Untrusted test CA", "-days", "1", "-keyout", "other-ca-key.pem", "-out", "other-ca.pem");
  openssl("req", "-new", ...ecKey, "-subj", "/CN=localhost", "-keyout", "server-key.pem", "-out", "server.csr");
  writeFileSync(join(dir, "server.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n");
  openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial", "-days", "1", "-extfile", "server.ext", "-out", "server.pem");

  // Keep CAs the environment already trusts this way.
  const previous = process.env["NODE_EXTRA_CA_CERTS"];
  const bundle = join(dir, "trusted.pem");
  const extra = previous && existsSync(previous) ? `${readFileSync(previous, "utf8")}\n` : "";
  writeFileSync(bundle, extra + readFileSync(join(dir, "ca.pem"), "utf8"));
  process.env["NODE_EXTRA_CA_CERTS"] = bundle;
  // grpc-js's default roots (createSsl() without a CA, as the SDK's auth examples use it): the
  // operator's way to trust a private CA without changing client code.
  const previousGrpcRoots = process.env["GRPC_DEFAULT_SSL_ROOTS_FILE_PATH"];
  process.env["GRPC_DEFAULT_SSL_ROOTS_FILE_PATH"] = bundle;
  project.provide("tlsDir", dir);
  return () => {
    if (previousGrpcRoots === undefined) delete process.env["GRPC_DEFAULT_SSL_ROOTS_FILE_PATH"];
    else process.env["GRPC_DEFAULT_SSL_ROOTS_FILE_PATH"] = previousGrpcRoots;
    if (previous === undefined) delete process.env["NODE_EXTRA_CA_CERTS"];
    else process.env["NODE_EXTRA_CA_CERTS"] = previous;
    rmSync(dir, { recursive: true, force: true });
  };
}
