// A real OIDC issuer (discovery, JWKS, token endpoint) that checks client secrets and counts token requests.
import { randomUUID } from "node:crypto";
import { OAuth2Server } from "oauth2-mock-server";

export interface TestIssuer {
  url: string;
  tokenRequests: () => number;
  /** Lifetime (seconds) of the tokens issued from now on. */
  setExpiresIn(seconds: number): void;
  stop(): Promise<void>;
}

export async function startTestIssuer(clients: Record<string, string>): Promise<TestIssuer> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate("RS256");
  await server.start(0, "127.0.0.1");
  let requests = 0;
  let expiresIn = 3600;
  server.service.on("beforeTokenSigning", (token, req) => {
    const clientId = String(req.body.client_id ?? "");
    Object.assign(token.payload, { sub: clientId, azp: clientId, aud: "gatehouse", jti: randomUUID() });
    token.payload.exp = token.payload.iat + expiresIn;
  });
  server.service.on("beforeResponse", (response, req) => {
    requests++;
    const body = req.body as unknown as Record<string, string>;
    if (clients[body["client_id"] ?? ""] !== body["client_secret"]) {
      response.statusCode = 401;
      response.body = { error: "invalid_client" };
    } else if (typeof response.body === "object") {
      response.body["expires_in"] = expiresIn;
    }
  });
  return {
    url: server.issuer.url as string,
    tokenRequests: () => requests,
    setExpiresIn: (seconds) => void (expiresIn = seconds),
    stop: () => server.stop(),
  };
}
