/**
 * A child process for token-store.process.test.ts: `node --import tsx token-store-writer.test-helpers.ts
 * <dir> <name> <count>` saves `count` logins of its own (resources https://<name>.example/<i>) into the
 * store in `dir`, as fast as it can, while other children do the same.
 */
import { TokenStore } from './token-store.js';

const [dir, name, count] = process.argv.slice(2);
const store = new TokenStore(dir!);
for (let i = 0; i < Number(count); i++) {
  store.saveTokens({
    issuer: 'https://as.example',
    resource: `https://${name}.example/${i}`,
    client_id: 'c',
    access_token: `${name}-access-${i}`,
    token_type: 'bearer',
  });
}
