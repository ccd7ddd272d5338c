// A real OIDC issuer for tests (discovery, JWKS, token endpoint), tokens with `sub` = client id.
import { OAuth2Server } from "oauth2-mock-server";

export interface TestIssuer {
  url: string;
  server: OAuth2Server;
  token(options?: { sub?: string; aud?: string; expiresIn?: number; orgId?: string }): Promise<string>;
  stop(): Promise<void>;
}

export async function startTestIssuer(): Promise<TestIssuer> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate("RS256");
  await server.start(0, "127.0.0.1");
  const url = server.issuer.url as string;
  return {
    url,
    server,
    token: ({ sub = "svc-client", aud = "gatehouse", expiresIn = 3600, orgId } = {}) =>
      server.issuer.buildToken({
        expiresIn,
        scopesOrTransform: (_header, payload) => {
          Object.assign(payload, { sub, azp: sub, aud, ...(orgId ? { organization: { id: orgId } } : {}) });
        },
      }),
    stop: () => server.stop(),
  };
}
