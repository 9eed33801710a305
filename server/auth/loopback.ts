/** True for an IPv4/IPv6 loopback socket address (including the IPv4-mapped IPv6 form Node reports). */
export function isLoopbackAddress(address: string | undefined): boolean {
  return /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/.test(address ?? '');
}
