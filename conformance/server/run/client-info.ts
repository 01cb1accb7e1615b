/** How the suite introduces itself: `clientInfo` in initialize, `io.modelcontextprotocol/clientInfo` in `_meta`. */
export const CLIENT_INFO = { name: 'furfly-conformance', version: '0.1.0' };
