// Public entry of @gatehouse/auth.
export { AuthError, isAuthError, type AuthErrorCode } from "./errors.js";
export { parseIdentityHeader, encodeIdentityHeader, type RhIdentity } from "./identity-header.js";
export { createOidcVerifier, type OidcVerifier, type OidcVerifierOptions, type VerifiedToken } from "./oidc.js";
export {
  parseSystemUsers,
  resolveSystemPrincipal,
  type SystemUsers,
  type SystemUserFlags,
  type SystemPrincipal,
} from "./system-users.js";
