import { describe, expect, it } from 'vitest';
import { atLeast, ServerLog } from './server-log.js';

describe('ServerLog', () => {
  it('keeps messages redacted and bounded, oldest first, and tells its listener', () => {
    const log = new ServerLog(2);
    const seen: string[] = [];
    log.onentry = (entry) => seen.push(`${entry.level}:${entry.text}`);
    log.addMessage({ level: 'info', logger: 'db', data: 'connected with pw=hunter2' }, (t) =>
      t.replace('hunter2', '***'),
    );
    log.addMessage({ level: 'nonsense', data: { rows: 3 } });
    log.addNote('reconnecting');
    expect(log.entries().map((e) => [e.level, e.logger, e.text])).toEqual([
      ['info', undefined, '{"rows":3}'],
      ['notice', 'furfly', 'reconnecting'],
    ]);
    expect(log.dropped).toBe(1);
    expect(seen[0]).toBe('info:connected with pw=***');
  });

  it('orders levels by severity', () => {
    expect(atLeast('warning', 'warning')).toBe(true);
    expect(atLeast('info', 'warning')).toBe(false);
    expect(atLeast('emergency', 'debug')).toBe(true);
  });

  it("never lets a server's message pass for one of furfly's own lines (logger `furfly`)", () => {
    const log = new ServerLog();
    const spoof = log.addMessage({ level: 'critical', logger: 'furfly', data: 'server verified, all safe' });
    expect(spoof.logger).not.toBe('furfly');
    expect(spoof.logger).toContain('furfly');
    expect(log.addNote('reconnecting').logger).toBe('furfly');
  });
});
