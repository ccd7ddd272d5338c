// Operator endpoints that change how the service runs (role-configuration reload) are not part of
// the public API and carry no identity: on the shared HTTP port only callers on the same host (an
// operator exec'd into the pod, a sidecar) may use them. SIGHUP does the same from outside.

/** Whether a socket's remote address is a loopback address (IPv4 127/8, IPv6 ::1, IPv4-mapped 127/8). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4)) return true;
  return address === "::1" || address === "0:0:0:0:0:0:0:1";
}
