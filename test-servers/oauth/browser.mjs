/**
 * A "$BROWSER" for the OAuth tests: `node browser.mjs <url>` follows the authorization URL through
 * the authorization server's redirects (keeping its cookies) until it lands on furfly's loopback
 * redirect, as a person's browser would after logging in and consenting.
 *
 * FURFLY_TEST_BROWSER_LOG: a file it appends one line per launch to (the paths it visited, never a
 * query: those hold codes). FURFLY_TEST_BROWSER_TAMPER=iss: the redirect to furfly carries a wrong
 * `iss` (a mix-up attack), which furfly must refuse. FURFLY_TEST_BROWSER_DELAY_MS: a person who takes
 * that long to log in (the wait comes before the first page).
 */
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const start = process.argv[process.argv.length - 1];
const cookies = new Map();
const visited = [];
let logged = false;
/**
 * The launch is logged before the last hop (furfly's loopback callback): once furfly has the code it
 * goes on at once, and a test that counts launches right after must find this one, however slowly this
 * process is scheduled on a loaded machine.
 */
function logLaunch() {
  if (logged || !process.env.FURFLY_TEST_BROWSER_LOG) return;
  logged = true;
  appendFileSync(process.env.FURFLY_TEST_BROWSER_LOG, `${visited.join(' ')}\n`);
}
const delayMs = Number(process.env.FURFLY_TEST_BROWSER_DELAY_MS ?? 0);
if (delayMs > 0) await sleep(delayMs);
let url = new URL(start);
for (let hop = 0; hop < 20; hop++) {
  visited.push(`${url.port}${url.pathname}`);
  if (url.pathname === '/callback' && process.env.FURFLY_TEST_BROWSER_TAMPER === 'iss') {
    url.searchParams.set('iss', 'http://127.0.0.1:1/mixed-up');
  }
  if (url.pathname === '/callback') logLaunch();
  const cookie = cookies.get(url.host);
  const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  const jar = new Map(
    (cookies.get(url.host) ?? '')
      .split('; ')
      .filter(Boolean)
      .map((c) => c.split(/=(.*)/s)),
  );
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const [name, value] = pair.split(/=(.*)/s);
    jar.set(name, value);
  }
  cookies.set(url.host, [...jar].map(([n, v]) => `${n}=${v}`).join('; '));
  const location = response.headers.get('location');
  await response.body?.cancel();
  if (response.status < 300 || response.status >= 400 || !location) break;
  url = new URL(location, url);
}
logLaunch();
