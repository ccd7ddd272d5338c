// A real OIDC issuer for tests (discovery, JWKS, token endpoint), tokens with `sub` = client id.
// Served by our own listener so a test can see the requests the service sends to it.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { OAuth2Server } from "oauth2-mock-server";

export interface TestIssuer {
  url: string;
  server: OAuth2Server;
  /** Every request received, in order (path and headers). */
  requests: Array<{ path: string; headers: IncomingHttpHeaders }>;
  token(options?: { sub?: string; aud?: string; expiresIn?: number; orgId?: string }): Promise<string>;
  stop(): Promise<void>;
}

export async function startTestIssuer(): Promise<TestIssuer> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate("RS256");
  const requests: TestIssuer["requests"] = [];
  const handler = server.service.requestHandler;
  const listener = createServer((req, res) => {
    requests.push({ path: req.url ?? "", headers: req.headers });
    handler(req, res);
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  server.issuer.url = url;
  return {
    url,
    server,
    requests,
    token: ({ sub = "svc-client", aud = "gatehouse", expiresIn = 3600, orgId } = {}) =>
      server.issuer.buildToken({
        expiresIn,
        scopesOrTransform: (_header, payload) => {
          Object.assign(payload, { sub, azp: sub, aud, ...(orgId ? { organization: { id: orgId } } : {}) });
        },
      }),
    stop: () => new Promise<void>((resolve) => listener.close(() => resolve())),
  };
}
