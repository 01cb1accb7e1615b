import { fc, test } from '@fast-check/vitest';
import { describe, expect, it, vi } from 'vitest';
import {
  RpcCancelledError,
  RpcDisconnectedError,
  RpcProtocolError,
  RpcRemoteError,
  RpcRequestFailedError,
  RpcTimeoutError,
} from './errors.js';
import { FakeTransport, flush } from './fake-transport.test-helpers.js';
import { JsonRpcPeer, type PeerValidator } from './peer.js';

function setup(options: ConstructorParameters<typeof JsonRpcPeer>[1] = {}) {
  const transport = new FakeTransport();
  const peer = new JsonRpcPeer(transport, options);
  const errors: Error[] = [];
  peer.onerror = (error) => errors.push(error);
  return { transport, peer, errors };
}

const acceptAll: PeerValidator = { message: () => [], result: () => [], params: () => [] };

describe('JsonRpcPeer requests', () => {
  it('treats timeouts beyond the largest timer delay as long, not as 1 ms', async () => {
    const { transport, peer } = setup();
    let settled = false;
    const pending = peer.request('a', {}, { timeoutMs: 2 ** 31, maxTotalTimeoutMs: 2 ** 40 }).finally(() => {
      settled = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(settled).toBe(false);
    transport.deliver({ jsonrpc: '2.0', id: 1, result: { ok: true } });
    await expect(pending).resolves.toEqual({ ok: true });
  });

  it('sends increasing integer ids and resolves with the matching result', async () => {
    const { transport, peer } = setup();
    const first = peer.request('a', { x: 1 });
    const second = peer.request('b');
    await flush();
    expect(transport.sent).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'a', params: { x: 1 } },
      { jsonrpc: '2.0', id: 2, method: 'b' },
    ]);
    transport.deliver({ jsonrpc: '2.0', id: 2, result: { two: true } });
    transport.deliver({ jsonrpc: '2.0', id: 1, result: { one: true } });
    await expect(first).resolves.toEqual({ one: true });
    await expect(second).resolves.toEqual({ two: true });
    expect(peer.pendingCount).toBe(0);
  });

  it('rejects with RpcRemoteError carrying code, message and data', async () => {
    const { transport, peer } = setup();
    const call = peer.request('tools/call');
    transport.deliver({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad', data: { why: 1 } } });
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcRemoteError);
    expect(error).toMatchObject({
      code: -32602,
      remoteMessage: 'bad',
      data: { why: 1 },
      method: 'tools/call',
    });
  });

  it('times out, sends notifications/cancelled and ignores the late answer', async () => {
    const { transport, peer, errors } = setup();
    const call = peer.request('tools/call', {}, { timeoutMs: 20 });
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcTimeoutError);
    expect((error as Error).message).toContain('timed out after 20 ms');
    await flush();
    expect(transport.lastSent()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, reason: (error as Error).message },
    });
    transport.deliver({ jsonrpc: '2.0', id: 1, result: {} });
    expect(peer.stats.lateResponses).toBe(1);
    expect(peer.stats.unknownResponses).toBe(0);
    expect(errors).toEqual([]);
  });

  it('never cancels initialize (the MCP spec forbids it)', async () => {
    const { transport, peer } = setup();
    await expect(peer.request('initialize', {}, { timeoutMs: 10 })).rejects.toBeInstanceOf(RpcTimeoutError);
    await flush();
    expect(transport.sent.map((m) => m.method)).toEqual(['initialize']);
  });

  it('cancels on AbortSignal with the abort reason', async () => {
    const { transport, peer } = setup();
    const controller = new AbortController();
    const call = peer.request('slow', {}, { signal: controller.signal });
    controller.abort(new Error('user pressed Esc'));
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcCancelledError);
    await flush();
    expect(transport.lastSent()).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: 1, reason: 'user pressed Esc' },
    });
    await expect(peer.request('x', {}, { signal: controller.signal })).rejects.toBeInstanceOf(
      RpcCancelledError,
    );
  });

  it('routes progress to the caller using the request id as token, keeping existing _meta', async () => {
    const { transport, peer } = setup();
    const seen: unknown[] = [];
    const call = peer.request('p', { _meta: { other: 1 } }, { onprogress: (p) => seen.push(p) });
    await flush();
    expect(transport.lastSent()).toMatchObject({ params: { _meta: { other: 1, progressToken: 1 } } });
    transport.deliver({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 1, progress: 1, total: 2 },
    });
    transport.deliver({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 99, progress: 1 },
    });
    transport.deliver({ jsonrpc: '2.0', id: 1, result: {} });
    await call;
    expect(seen).toEqual([{ progressToken: 1, progress: 1, total: 2 }]);
  });

  it('resets the timeout on progress, but not beyond the hard maximum', async () => {
    // Fake timers (and a fake Date.now) make the schedule exact: a loaded machine cannot delay the
    // progress ticks past the 60 ms timeout and turn the hard-limit failure into a plain timeout.
    vi.useFakeTimers();
    try {
      const { transport, peer } = setup();
      const call = peer.request(
        'p',
        {},
        {
          timeoutMs: 60,
          resetTimeoutOnProgress: true,
          maxTotalTimeoutMs: 200,
          onprogress: () => {},
        },
      );
      let settled = false;
      const outcome = call.then(
        () => 'resolved',
        (e: unknown) => e,
      );
      void outcome.finally(() => {
        settled = true;
      });
      const tick = () =>
        transport.deliver({
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: 1, progress: 1 },
        });
      for (let elapsed = 20; elapsed <= 120; elapsed += 20) {
        await vi.advanceTimersByTimeAsync(20);
        tick();
      }
      expect(settled).toBe(false); // would have timed out at 60 ms without the resets
      for (let elapsed = 140; elapsed <= 260 && !settled; elapsed += 20) {
        await vi.advanceTimersByTimeAsync(20);
        if (!settled) tick();
      }
      const error = await outcome;
      expect(error).toBeInstanceOf(RpcTimeoutError);
      expect((error as Error).message).toContain('hard limit');
    } finally {
      vi.useRealTimers();
    }
  });

  it('suspendTimeouts stops every timeout (pending and new requests) until released, then gives each its whole time again', async () => {
    vi.useFakeTimers();
    try {
      const { peer } = setup();
      const settled: string[] = [];
      const watch = (name: string, p: Promise<unknown>) =>
        p.then(
          () => settled.push(`${name} resolved`),
          (e: unknown) => settled.push(`${name} ${e instanceof RpcTimeoutError ? 'timed out' : 'failed'}`),
        );
      void watch('before', peer.request('a', {}, { timeoutMs: 100 }));
      await vi.advanceTimersByTimeAsync(50);
      const release = peer.suspendTimeouts();
      const inner = peer.suspendTimeouts();
      void watch('during', peer.request('b', {}, { timeoutMs: 100 }));
      await vi.advanceTimersByTimeAsync(10_000);
      expect(settled).toEqual([]);
      inner();
      await vi.advanceTimersByTimeAsync(10_000);
      expect(settled).toEqual([]); // the outer hold is still open
      release();
      release(); // a second call changes nothing
      await vi.advanceTimersByTimeAsync(99);
      expect(settled).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(settled.sort()).toEqual(['before timed out', 'during timed out']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('fails every pending request at once when the transport closes, with reason and diagnostics', async () => {
    const { transport, peer } = setup();
    transport.diagnosticsText = 'stderr tail: "boom"';
    const calls = [peer.request('a'), peer.request('b'), peer.request('c')];
    let closeReason: unknown;
    peer.onclose = (r) => {
      closeReason = r;
    };
    transport.die({ message: 'server exited with code 3', code: 3 });
    for (const call of calls) {
      const error = await call.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RpcDisconnectedError);
      expect((error as Error).message).toContain('server exited with code 3; stderr tail: "boom"');
    }
    expect(closeReason).toEqual({ message: 'server exited with code 3', code: 3 });
    await expect(peer.request('d')).rejects.toBeInstanceOf(RpcDisconnectedError);
    await expect(peer.notify('n')).rejects.toBeInstanceOf(RpcDisconnectedError);
  });

  it('fails a request whose send fails', async () => {
    const { transport, peer } = setup();
    transport.sendFails = new Error('EPIPE');
    const error = await peer.request('a').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcDisconnectedError);
    expect((error as Error).message).toContain('EPIPE');
  });

  it('close() is idempotent and fails pending requests', async () => {
    const { peer } = setup();
    const call = peer.request('a');
    await peer.close();
    await peer.close();
    await expect(call).rejects.toBeInstanceOf(RpcDisconnectedError);
  });
});

/** A transport's own error class: the peer must pass it on as the cause, untouched. */
class ReplyCutError extends Error {
  override name = 'ReplyCutError';
  readonly status = 200;
}

describe('JsonRpcPeer requests the transport loses (onrequestfailed)', () => {
  it('fails exactly the named requests with the typed error; the others and the connection go on', async () => {
    const { transport, peer, errors } = setup();
    const lost = peer.request('tools/call', { name: 'a' });
    const kept = peer.request('tools/call', { name: 'b' });
    await flush();
    const cut = new ReplyCutError('the reply stream was cut before the response arrived');
    transport.loseRequests([1], cut);
    const error = await lost.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcRequestFailedError);
    expect(error).not.toBeInstanceOf(RpcDisconnectedError);
    expect(error).toMatchObject({ method: 'tools/call', reason: cut.message });
    expect((error as Error).cause).toBe(cut);
    expect((error as Error).message).toBe(`"tools/call" failed in the transport: ${cut.message}`);
    expect(peer.pendingCount).toBe(1);
    transport.deliver({ jsonrpc: '2.0', id: 2, result: { ok: true } });
    await expect(kept).resolves.toEqual({ ok: true });
    expect(peer.isClosed).toBe(false);
    // The request was lost, not given up on: nothing is cancelled, and nothing is reported as a fault.
    expect(transport.sent.some((m) => m.method === 'notifications/cancelled')).toBe(false);
    expect(errors).toEqual([]);
  });

  it('treats a response that still arrives for a lost request as late, not unknown', async () => {
    const { transport, peer, errors } = setup();
    const lost = peer.request('a');
    lost.catch(() => {});
    transport.loseRequests([1], new ReplyCutError('cut'));
    transport.deliver({ jsonrpc: '2.0', id: 1, result: {} });
    expect(peer.stats).toMatchObject({ lateResponses: 1, unknownResponses: 0 });
    expect(errors).toEqual([]);
  });

  it('ignores ids that are not pending: unknown, answered, strings, or lost twice', async () => {
    const { transport, peer } = setup();
    const answered = peer.request('a');
    const lost = peer.request('b');
    const kept = peer.request('c');
    transport.deliver({ jsonrpc: '2.0', id: 1, result: { one: true } });
    await expect(answered).resolves.toEqual({ one: true });
    const first = new ReplyCutError('first');
    transport.loseRequests([1, 2, 99, '3'], first);
    transport.loseRequests([2], new ReplyCutError('second'));
    await expect(lost).rejects.toMatchObject({ cause: first });
    expect(peer.pendingCount).toBe(1);
    transport.deliver({ jsonrpc: '2.0', id: 3, result: { three: true } });
    await expect(kept).resolves.toEqual({ three: true });
  });

  it('settles a request once when the transport both reports it lost and rejects its send', async () => {
    const { transport, peer } = setup();
    const cut = new ReplyCutError('HTTP 500');
    transport.send = async (message) => {
      transport.loseRequests([(message as { id: number }).id], cut);
      throw cut;
    };
    const error = await peer.request('a').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcRequestFailedError);
    expect((error as Error).cause).toBe(cut);
  });

  test.prop([fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }), fc.boolean()])(
    'whichever requests are lost, in one report or one by one, exactly those fail and the rest resolve',
    async (lose, oneReport) => {
      const { transport, peer } = setup();
      const calls = lose.map((_, i) =>
        peer.request(`m${i}`).then(
          (value) => ({ ok: true as const, value }),
          (error: unknown) => ({ ok: false as const, error }),
        ),
      );
      await flush();
      const lostIds = lose.flatMap((isLost, i) => (isLost ? [i + 1] : []));
      const cut = new ReplyCutError('cut');
      if (oneReport) transport.loseRequests(lostIds, cut);
      else for (const id of lostIds) transport.loseRequests([id], cut);
      lose.forEach((isLost, i) => {
        if (!isLost) transport.deliver({ jsonrpc: '2.0', id: i + 1, result: { i } });
      });
      const outcomes = await Promise.all(calls);
      outcomes.forEach((outcome, i) => {
        if (lose[i]) {
          expect(outcome.ok).toBe(false);
          expect((outcome as { error: unknown }).error).toBeInstanceOf(RpcRequestFailedError);
        } else expect(outcome).toEqual({ ok: true, value: { i } });
      });
      expect(peer.pendingCount).toBe(0);
      expect(peer.isClosed).toBe(false);
    },
  );
});

describe('JsonRpcPeer validation', () => {
  it('fails the request answered by a result that violates the schema, naming the pointer', async () => {
    const validator: PeerValidator = {
      ...acceptAll,
      result: (method, result) =>
        method === 'tools/list' && !Array.isArray((result as { tools?: unknown }).tools)
          ? [{ pointer: '/tools', message: 'must be array' }]
          : [],
    };
    const { transport, peer } = setup({ validator });
    const call = peer.request('tools/list');
    transport.deliver({ jsonrpc: '2.0', id: 1, result: { tools: 'nope' } });
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcProtocolError);
    expect(error).toMatchObject({ pointer: '/result/tools' });
    expect((error as Error).message).toContain('must be array');
    expect(peer.stats.invalidMessages).toBe(1);
  });

  it('skips result validation when asked (the caller validates initialize itself)', async () => {
    const validator: PeerValidator = { ...acceptAll, result: () => [{ pointer: '', message: 'never' }] };
    const { transport, peer } = setup({ validator });
    const call = peer.request('initialize', {}, { validateResult: false });
    transport.deliver({ jsonrpc: '2.0', id: 1, result: { ok: 1 } });
    await expect(call).resolves.toEqual({ ok: 1 });
  });

  it('an envelope that fails validation fails the request carrying its id', async () => {
    const validator: PeerValidator = {
      ...acceptAll,
      message: (m) => ('extra' in (m as object) ? [{ pointer: '/extra', message: 'unexpected' }] : []),
    };
    const { transport, peer, errors } = setup({ validator });
    const call = peer.request('a');
    transport.deliver({ jsonrpc: '2.0', id: 1, result: {}, extra: true });
    await expect(call).rejects.toMatchObject({ pointer: '/extra' });
    expect(peer.stats.invalidMessages).toBe(1);
    expect(errors).toHaveLength(1);
  });

  it('a wrong jsonrpc version is invalid and fails the request it claims to answer', async () => {
    const { transport, peer } = setup();
    const call = peer.request('a');
    transport.deliver({ jsonrpc: '1.0', id: 1, result: {} });
    await expect(call).rejects.toBeInstanceOf(RpcProtocolError);
  });

  it('counts and reports a response with an unknown id without failing others', async () => {
    const { transport, peer, errors } = setup();
    const call = peer.request('a');
    transport.deliver({ jsonrpc: '2.0', id: 42, result: {} });
    transport.deliver({ jsonrpc: '2.0', id: 'x', result: {} });
    expect(peer.stats.unknownResponses).toBe(2);
    expect(errors.map((e) => e.message)).toEqual([
      'received a response with unknown id 42',
      'received a response with unknown id "x"',
    ]);
    transport.deliver({ jsonrpc: '2.0', id: 1, result: { fine: 1 } });
    await expect(call).resolves.toEqual({ fine: 1 });
  });

  it('drops a notification with invalid params and counts it', () => {
    const validator: PeerValidator = {
      ...acceptAll,
      params: () => [{ pointer: '/level', message: 'bad level' }],
    };
    const { transport, peer, errors } = setup({ validator });
    const seen: string[] = [];
    peer.onnotification = (method) => seen.push(method);
    transport.deliver({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'loud' } });
    expect(seen).toEqual([]);
    expect(peer.stats.invalidMessages).toBe(1);
    expect(errors[0]).toMatchObject({ pointer: '/params/level' });
  });

  it('processes each message of a batch', async () => {
    const { transport, peer } = setup();
    const a = peer.request('a');
    const b = peer.request('b');
    transport.deliver([
      { jsonrpc: '2.0', id: 1, result: { a: 1 } },
      { jsonrpc: '2.0', id: 2, result: { b: 1 } },
    ]);
    await expect(a).resolves.toEqual({ a: 1 });
    await expect(b).resolves.toEqual({ b: 1 });
  });

  it('a batch rejected by the validator fails the requests it answers', async () => {
    const validator: PeerValidator = {
      ...acceptAll,
      message: (m) => (Array.isArray(m) ? [{ pointer: '', message: 'no batches' }] : []),
    };
    const { transport, peer } = setup({ validator });
    const a = peer.request('a');
    transport.deliver([{ jsonrpc: '2.0', id: 1, result: {} }]);
    await expect(a).rejects.toThrow('no batches');
  });
});

describe('JsonRpcPeer incoming requests and notifications', () => {
  it('answers ping with {} and unknown methods with -32601', async () => {
    const { transport } = setup();
    transport.deliver({ jsonrpc: '2.0', id: 'p1', method: 'ping' });
    transport.deliver({ jsonrpc: '2.0', id: 7, method: 'sampling/createMessage', params: {} });
    await flush();
    expect(transport.sent).toEqual([
      { jsonrpc: '2.0', id: 'p1', result: {} },
      { jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found: sampling/createMessage' } },
    ]);
  });

  it('runs registered handlers and turns their failures into errors', async () => {
    const { transport, peer } = setup();
    peer.setRequestHandler('roots/list', () => ({ roots: [] }));
    peer.setRequestHandler('boom', () => {
      throw new RpcRemoteError(undefined, -32000, 'nope');
    });
    peer.setRequestHandler('crash', async () => {
      throw new Error('bug');
    });
    transport.deliver({ jsonrpc: '2.0', id: 1, method: 'roots/list' });
    transport.deliver({ jsonrpc: '2.0', id: 2, method: 'boom' });
    transport.deliver({ jsonrpc: '2.0', id: 3, method: 'crash' });
    await flush();
    const byId = [...transport.sent].sort((x, y) => (x.id as number) - (y.id as number));
    expect(byId).toEqual([
      { jsonrpc: '2.0', id: 1, result: { roots: [] } },
      { jsonrpc: '2.0', id: 2, error: { code: -32000, message: 'nope' } },
      { jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'bug' } },
    ]);
  });

  it('delivers notifications to method handlers and onnotification; a throwing handler is reported', () => {
    const { transport, peer, errors } = setup();
    const seen: unknown[] = [];
    peer.setNotificationHandler('notifications/tools/list_changed', () => seen.push('handler'));
    peer.onnotification = (method, params) => seen.push([method, params]);
    transport.deliver({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    transport.deliver({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: 'hi' },
    });
    expect(seen).toEqual([
      'handler',
      ['notifications/tools/list_changed', undefined],
      ['notifications/message', { level: 'info', data: 'hi' }],
    ]);
    peer.onnotification = () => {
      throw new Error('listener bug');
    };
    transport.deliver({ jsonrpc: '2.0', method: 'x' });
    expect(errors.at(-1)?.message).toContain('listener bug');
  });
});

describe('JsonRpcPeer robustness', () => {
  it('reports (never throws) when answering fails, even synchronously', async () => {
    const { transport, peer, errors } = setup();
    transport.send = () => {
      throw new Error('pipe gone');
    };
    expect(() => transport.deliver({ jsonrpc: '2.0', id: 1, method: 'ping' })).not.toThrow();
    peer.setRequestHandler('x', async () => ({}));
    transport.deliver({ jsonrpc: '2.0', id: 2, method: 'x' });
    await flush();
    expect(errors.map((e) => e.message)).toEqual(['pipe gone', 'pipe gone']);
  });

  test.prop([fc.array(fc.jsonValue(), { maxLength: 20 })])(
    'never throws on arbitrary JSON values',
    async (values) => {
      const { transport, peer } = setup({ validator: acceptAll });
      const pending = [
        peer.request('a', {}, { timeoutMs: 1000 }),
        peer.request('b', {}, { timeoutMs: 1000 }),
      ];
      for (const p of pending) p.catch(() => {});
      for (const value of values) expect(() => transport.deliver(value)).not.toThrow();
      await peer.close();
      await Promise.allSettled(pending);
    },
  );

  const responseLike = fc.record(
    {
      jsonrpc: fc.constantFrom('2.0', '1.0', 2),
      id: fc.oneof(fc.constantFrom(1, 2, 3, null), fc.jsonValue()),
      method: fc.oneof(fc.string(), fc.jsonValue()),
      result: fc.jsonValue(),
      error: fc.oneof(
        fc.record({ code: fc.integer(), message: fc.string(), data: fc.jsonValue() }),
        fc.jsonValue(),
      ),
      params: fc.jsonValue(),
    },
    { requiredKeys: [] },
  );

  test.prop([fc.array(fc.oneof(responseLike, fc.array(responseLike, { maxLength: 3 })), { maxLength: 20 })])(
    'never throws on message-shaped values, and every request settles',
    async (values) => {
      const { transport, peer } = setup({ validator: acceptAll });
      const pending = [peer.request('a', {}, { onprogress: () => {} }), peer.request('b'), peer.request('c')];
      for (const p of pending) p.catch(() => {});
      for (const value of values) expect(() => transport.deliver(value)).not.toThrow();
      await peer.close();
      const settled = await Promise.allSettled(pending);
      expect(settled).toHaveLength(3);
    },
  );
});
