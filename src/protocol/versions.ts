/**
 * The MCP protocol versions furfly speaks, and every behavioural difference between them.
 *
 * This is the one place where version differences that code must act on are written down.
 * Differences in message shapes live in the schemas (`schemas/mcp/<version>/`); this table covers
 * what the schemas cannot say (transport rules, negotiation) and names the shape differences too,
 * so code can ask "does this version have X?" instead of comparing version strings.
 */

/** Newest first: the client proposes the first one. */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;

export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];

export const LATEST_PROTOCOL_VERSION: ProtocolVersion = PROTOCOL_VERSIONS[0];

export interface VersionFeatures {
  /** JSON-RPC batches (arrays of messages) are allowed. Added in 2025-03-26, removed in 2025-06-18. */
  batching: boolean;
  /** Streamable HTTP clients send `MCP-Protocol-Version` on every request after initialization. */
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
}

const FEATURES: Record<ProtocolVersion, VersionFeatures> = {
  '2025-03-26': {
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
    batching: false,
    protocolVersionHeader: true,
    structuredContent: true,
    resourceLink: true,
    titles: true,
    icons: true,
    toolNameRules: true,
    inputValidationAsToolError: true,
  },
};

export function isProtocolVersion(value: unknown): value is ProtocolVersion {
  return typeof value === 'string' && (PROTOCOL_VERSIONS as readonly string[]).includes(value);
}

export function featuresOf(version: ProtocolVersion): VersionFeatures {
  return FEATURES[version];
}
