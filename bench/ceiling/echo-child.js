// The ceiling's server: every line that arrives on stdin goes straight back to stdout, byte for byte.
// No JSON, no validation, no MCP: what is left is the pipe, the event loop and process scheduling,
// which is what any stdio MCP client pays at the very least.
process.stdin.pipe(process.stdout);
process.stdin.on('end', () => process.exit(0));
