#!/usr/bin/env node
/**
 * A stand-in for the user's browser, for `$BROWSER`: furfly opens the authorization URL with it, and it
 * does what a user who clicks "allow" does: it follows the authorization server's redirects until the
 * loopback redirect URI (furfly's listener on 127.0.0.1) has answered. It sends nothing else, prints
 * nothing (the URLs hold codes and state), and stops after a bounded number of hops.
 *
 * Only loopback URLs are followed: the official suite's servers all listen on this machine.
 */
const MAX_HOPS = 10;

async function main() {
  let url = new URL(process.argv[2] ?? '');
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return;
    const response = await fetch(url, { redirect: 'manual' });
    await response.arrayBuffer();
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || location === null) return;
    url = new URL(location, url);
  }
}

main().catch(() => {
  process.exitCode = 1;
});
