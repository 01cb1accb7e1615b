/**
 * The format judgement behind jsonrpc.trace-context-format (W3C Trace Context and Baggage). The check
 * itself is calibrated by fixtures/conformance/spec-breaker.bad-traceparent.modern.expected.json.
 */
import { describe, expect, it } from 'vitest';
import { traceContextIssues } from './trace-context.js';

describe('trace context in _meta', () => {
  it.each([
    [{ traceparent: '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01' }],
    [{ traceparent: '01-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01-future' }],
    [{ tracestate: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE' }],
    [{ tracestate: 'vendor@tenant=abc, other=1' }],
    [{ baggage: 'userId=alice,serverNode=DF%2028,isProduction=false;prop' }],
    [{ other: 'anything' }],
    [undefined],
  ])('accepts %j', (meta) => {
    expect(traceContextIssues(meta)).toEqual([]);
  });

  it.each([
    [{ traceparent: 'trace-1' }],
    [{ traceparent: '00-0AF7651916CD43DD8448EB211C80319C-00f067aa0ba902b7-01' }],
    [{ traceparent: 'ff-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01' }],
    [{ traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' }],
    [{ traceparent: '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01' }],
    [{ traceparent: '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01-extra' }],
    [{ traceparent: 42 }],
    [{ tracestate: 'no equals sign' }],
    [{ baggage: 'a b=c' }],
  ])('rejects %j', (meta) => {
    expect(traceContextIssues(meta)).toHaveLength(1);
  });
});
