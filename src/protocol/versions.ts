/**
 * The MCP protocol versions furfly knows, their era, and every behavioural difference between them.
 *
 * This is the one place where version differences that code must act on are written down.
 * Differences in message shapes live in the schemas (`schemas/mcp/<version>/`); this table covers
 * what the schemas cannot say (transport rules, negotiation) and names the shape differences too,
 * so code can ask "does this version have X?" instead of comparing version strings.
 *
 * Two eras:
 * - legacy (2025-03-26 .. 2025-11-25): a session opened by `initialize` / `notifications/initialized`, in
 *   which the version is negotiated once;
 * - modern (2026-07-28 on): no handshake and no session; every request carries its version and the
 *   client's capabilities in `_meta`, `server/discover` advertises what a server speaks.
 * A version is proposed in `initialize` only if it is legacy; a modern version never appears there.
 */

/** Versions negotiated by `initialize`, newest first: the client proposes the first one. */
export const LEGACY_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
/** Versions spoken without a handshake (version in every request's `_meta`), newest first. */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;
/**
 * Older than every version furfly proposes, and accepted only when a server answers `initialize` with it:
 * 2024-11-05, the version of the old HTTP+SSE transport, which many hosted servers still speak. It has
 * schemas and features like the others, but furfly never proposes it, the conformance suite does not vet
 * it, and a config cannot pin it.
 */
export const OLDER_LEGACY_PROTOCOL_VERSIONS = ['2024-11-05'] as const;
/** Every version furfly has schemas for, newest first. */
export const KNOWN_PROTOCOL_VERSIONS = [
  ...MODERN_PROTOCOL_VERSIONS,
  ...LEGACY_PROTOCOL_VERSIONS,
  ...OLDER_LEGACY_PROTOCOL_VERSIONS,
] as const;

export type LegacyProtocolVersion = (typeof LEGACY_PROTOCOL_VERSIONS)[number];
export type ModernProtocolVersion = (typeof MODERN_PROTOCOL_VERSIONS)[number];
export type OlderLegacyProtocolVersion = (typeof OLDER_LEGACY_PROTOCOL_VERSIONS)[number];
export type KnownProtocolVersion = LegacyProtocolVersion | ModernProtocolVersion | OlderLegacyProtocolVersion;
export type ProtocolEra = 'legacy' | 'modern';

/**
 * The versions an `initialize` may propose or accept. Kept under this name (and `ProtocolVersion`,
 * `LATEST_PROTOCOL_VERSION`, `isProtocolVersion`) with its legacy meaning, so everything that negotiates
 * through `initialize` (the client, the conformance suite, the test servers) is unchanged by the modern era.
 */
export const PROTOCOL_VERSIONS = LEGACY_PROTOCOL_VERSIONS;
export type ProtocolVersion = LegacyProtocolVersion;
export const LATEST_PROTOCOL_VERSION: ProtocolVersion = LEGACY_PROTOCOL_VERSIONS[0];
export const LATEST_MODERN_PROTOCOL_VERSION: ModernProtocolVersion = MODERN_PROTOCOL_VERSIONS[0];

/** Error codes the specification allocates (2026-07-28 on; -32020..-32099 is reserved for MCP). */
export const MCP_ERROR_CODES = {
  /** HTTP headers disagree with the body, or a required header is missing or malformed. */
  HeaderMismatch: -32020,
  /** The request needs a client capability its `_meta` did not declare (`data.requiredCapabilities`). */
  MissingRequiredClientCapability: -32021,
  /** The server does not speak the requested version (`data.supported`, `data.requested`). */
  UnsupportedProtocolVersion: -32022,
} as const;

/** The `_meta` keys the modern era reserves. */
export const META_KEYS = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

export interface VersionFeatures {
  era: ProtocolEra;
  /** JSON-RPC batches (arrays of messages) are allowed. Added in 2025-03-26, removed in 2025-06-18. */
  batching: boolean;
  /** Streamable HTTP clients send `MCP-Protocol-Version` on every request after initialization (every request, modern). */
  protocolVersionHeader: boolean;
  /** Tools may declare `outputSchema` and results may carry `structuredContent`. */
  structuredContent: boolean;
  /** `resource_link` content blocks exist. */
  resourceLink: boolean;
  /** `title` on tools, prompts, resources and implementations. */
  titles: boolean;
  /** `icons` on tools, prompts, resources and implementations. */
  icons: boolean;
  /** Tool names follow the SEP-986 rules: 1-128 chars of A-Z a-z 0-9 _ - . */
  toolNameRules: boolean;
  /** Invalid tool arguments are reported as a tool result with `isError: true`, not a JSON-RPC error. */
  inputValidationAsToolError: boolean;
  /** `initialize` / `notifications/initialized` open a session (legacy). Modern: none, and no `ping`. */
  initializeHandshake: boolean;
  /** Streamable HTTP sessions (`Mcp-Session-Id`), the GET stream and DELETE. */
  httpSessions: boolean;
  /** `server/discover` exists (servers MUST implement it). */
  serverDiscover: boolean;
  /** Every request's `params._meta` carries the version and client capabilities (and may carry clientInfo, logLevel). */
  requestMeta: boolean;
  /** Every result carries `resultType` (`complete`, `input_required`, ...). */
  resultType: boolean;
  /** Servers send requests (roots, sampling, elicitation) to the client. Modern: never; they ask via `inputRequired`. */
  serverRequests: boolean;
  /** `tools/call`, `prompts/get`, `resources/read` may answer with an InputRequiredResult (multi round-trip). */
  inputRequired: boolean;
  /** The log level is set with `logging/setLevel` (legacy) rather than per request in `_meta` (modern). */
  loggingSetLevel: boolean;
  /** Change notifications come through `subscriptions/listen` (replacing `resources/subscribe` and the GET stream). */
  subscriptionsListen: boolean;
  /** `ttlMs` and `cacheScope` on the list results, `resources/read` and `server/discover`. */
  cacheHints: boolean;
  /** Streamable HTTP POSTs carry `Mcp-Method` and `Mcp-Name`, and `Mcp-Param-{Name}` for `x-mcp-header` tool parameters. */
  methodHeaders: boolean;
  /** SSE event ids and `Last-Event-ID` resumption; without them a broken stream loses the request. */
  sseResumability: boolean;
  /**
   * HTTP servers speak Streamable HTTP (one endpoint). 2024-11-05 had the old HTTP+SSE transport
   * instead: a GET event stream whose `endpoint` event names where to POST (LegacySseTransport).
   */
  streamableHttp: boolean;
  /** The error code for an unknown resource in `resources/read`. */
  resourceNotFoundCode: -32002 | -32602;
}

const LEGACY_BASE = {
  era: 'legacy',
  initializeHandshake: true,
  httpSessions: true,
  serverDiscover: false,
  requestMeta: false,
  resultType: false,
  serverRequests: true,
  inputRequired: false,
  loggingSetLevel: true,
  subscriptionsListen: false,
  cacheHints: false,
  methodHeaders: false,
  sseResumability: true,
  streamableHttp: true,
  resourceNotFoundCode: -32002,
} as const satisfies Partial<VersionFeatures>;

const FEATURES: Record<KnownProtocolVersion, VersionFeatures> = {
  /** The 2025-03-26 shapes without batches, audio content and tool annotations (see the schema). */
  '2024-11-05': {
    ...LEGACY_BASE,
    batching: false,
    protocolVersionHeader: false,
    structuredContent: false,
    resourceLink: false,
    titles: false,
    icons: false,
    toolNameRules: false,
    inputValidationAsToolError: false,
    // No Streamable HTTP yet: no Mcp-Session-Id, no GET stream of its own, no resumption.
    httpSessions: false,
    sseResumability: false,
    streamableHttp: false,
  },
  '2025-03-26': {
    ...LEGACY_BASE,
    batching: true,
    protocolVersionHeader: false,
    structuredContent: false,
    resourceLink: false,
    titles: false,
    icons: false,
    toolNameRules: false,
    inputValidationAsToolError: false,
  },
  '2025-06-18': {
    ...LEGACY_BASE,
    batching: false,
    protocolVersionHeader: true,
    structuredContent: true,
    resourceLink: true,
    titles: true,
    icons: false,
    toolNameRules: false,
    inputValidationAsToolError: false,
  },
  '2025-11-25': {
    ...LEGACY_BASE,
    batching: false,
    protocolVersionHeader: true,
    structuredContent: true,
    resourceLink: true,
    titles: true,
    icons: true,
    toolNameRules: true,
    inputValidationAsToolError: true,
  },
  '2026-07-28': {
    era: 'modern',
    batching: false,
    protocolVersionHeader: true,
    structuredContent: true,
    resourceLink: true,
    titles: true,
    icons: true,
    toolNameRules: true,
    inputValidationAsToolError: true,
    initializeHandshake: false,
    httpSessions: false,
    serverDiscover: true,
    requestMeta: true,
    resultType: true,
    serverRequests: false,
    inputRequired: true,
    loggingSetLevel: false,
    subscriptionsListen: true,
    cacheHints: true,
    methodHeaders: true,
    sseResumability: false,
    streamableHttp: true,
    resourceNotFoundCode: -32602,
  },
};

/** A version an `initialize` may carry (legacy era). */
export function isProtocolVersion(value: unknown): value is ProtocolVersion {
  return typeof value === 'string' && (LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(value);
}

export const isLegacyProtocolVersion = isProtocolVersion;

export function isModernProtocolVersion(value: unknown): value is ModernProtocolVersion {
  return typeof value === 'string' && (MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(value);
}

/** 2024-11-05: accepted in an initialize answer, never proposed. */
export function isOlderLegacyProtocolVersion(value: unknown): value is OlderLegacyProtocolVersion {
  return typeof value === 'string' && (OLDER_LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(value);
}

/** Any version furfly has schemas for, of either era. */
export function isKnownProtocolVersion(value: unknown): value is KnownProtocolVersion {
  return isProtocolVersion(value) || isModernProtocolVersion(value) || isOlderLegacyProtocolVersion(value);
}

export function eraOf(version: KnownProtocolVersion): ProtocolEra {
  return FEATURES[version].era;
}

export function featuresOf(version: KnownProtocolVersion): VersionFeatures {
  return FEATURES[version];
}
