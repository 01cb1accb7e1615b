import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { DockerStreamDemuxer, dockerFrame } from './docker-stream.js';

const frames = fc.array(
  fc.record({ kind: fc.constantFrom<1 | 2>(1, 2), payload: fc.uint8Array({ maxLength: 300 }) }),
  { maxLength: 20 },
);

describe('DockerStreamDemuxer', () => {
  test.prop([frames, fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 10 })])(
    'splits stdout from stderr whatever the chunk boundaries',
    (list, cuts) => {
      const wire = Buffer.concat(list.map(({ kind, payload }) => dockerFrame(kind, Buffer.from(payload))));
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      const demuxer = new DockerStreamDemuxer({ stdout: (c) => out.push(c), stderr: (c) => err.push(c) });
      let offset = 0;
      for (let i = 0; offset < wire.length; i++) {
        const size = cuts[i % cuts.length]!;
        demuxer.push(wire.subarray(offset, offset + size));
        offset += size;
      }
      const expected = (kind: 1 | 2) =>
        Buffer.concat(list.filter((f) => f.kind === kind).map((f) => Buffer.from(f.payload)));
      expect(Buffer.concat(out)).toEqual(expected(1));
      expect(Buffer.concat(err)).toEqual(expected(2));
    },
  );

  test.prop([fc.uint8Array({ minLength: 1, maxLength: 100 })])(
    'drops frames of unknown streams',
    (payload) => {
      const out: Buffer[] = [];
      const demuxer = new DockerStreamDemuxer({ stdout: (c) => out.push(c), stderr: (c) => out.push(c) });
      const unknown = dockerFrame(1, Buffer.from(payload));
      unknown[0] = 0;
      demuxer.push(Buffer.concat([unknown, dockerFrame(1, Buffer.from('ok'))]));
      expect(Buffer.concat(out).toString()).toBe('ok');
    },
  );
});
