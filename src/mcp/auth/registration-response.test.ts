import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { withSecretExpiryDefault } from './registration-response.js';

const created = (body: unknown) =>
  new Response(JSON.stringify(body), { status: 201, headers: { 'content-type': 'application/json' } });

describe('dynamic client registration responses', () => {
  it('reads a secret without client_secret_expires_at as one that does not expire (0)', async () => {
    const response = await withSecretExpiryDefault(created({ client_id: 'c1', client_secret: 's1' }));
    const registered = await oauth.processDynamicClientRegistrationResponse(response);
    expect(registered.client_id).toBe('c1');
    expect(registered.client_secret_expires_at).toBe(0);
  });

  it('oauth4webapi alone refuses that response (the reason for the default)', async () => {
    await expect(
      oauth.processDynamicClientRegistrationResponse(created({ client_id: 'c1', client_secret: 's1' })),
    ).rejects.toThrow(/client_secret_expires_at/);
  });

  it('keeps refusing what is malformed: a non-numeric expiry, a missing client_id, a non-string secret', async () => {
    for (const body of [
      { client_id: 'c1', client_secret: 's1', client_secret_expires_at: 'never' },
      { client_secret: 's1' },
      { client_id: 'c1', client_secret: 42 },
    ]) {
      await expect(
        oauth.processDynamicClientRegistrationResponse(await withSecretExpiryDefault(created(body))),
      ).rejects.toThrow();
    }
  });

  it('leaves a public client, an error answer and a present expiry as they were', async () => {
    const publicClient = created({ client_id: 'c1' });
    expect(await withSecretExpiryDefault(publicClient)).toBe(publicClient);
    const refused = new Response('{"error":"invalid_redirect_uri"}', { status: 400 });
    expect(await withSecretExpiryDefault(refused)).toBe(refused);
    const expiring = created({ client_id: 'c1', client_secret: 's', client_secret_expires_at: 1 });
    expect(await withSecretExpiryDefault(expiring)).toBe(expiring);
  });
});
