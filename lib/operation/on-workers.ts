// Cloudflare Workers differ from Node, Deno and Bun in two ways the store minds: a timer belongs
// to the request that set it, and no `Date` is added to an answer. Told by the user agent, as
// jose does (panva/jose#355).
export const ON_WORKERS =
  (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent ===
  'Cloudflare-Workers';
