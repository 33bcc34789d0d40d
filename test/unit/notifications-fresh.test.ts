import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Notifications } from '../../src/db/notifications.js';

// A listening connection that stalls without closing (a network cut, a half-open socket) answers
// nothing more: no notice, no heartbeat. What it kept must stop counting within 3 s of its last
// answer, long before the heartbeat's own 5 s give it up for down (src/db/caller-cache.ts uses `fresh`).
class StallingClient extends EventEmitter {
  stalled = false;
  connect(): Promise<void> {
    return Promise.resolve();
  }
  query(): Promise<unknown> {
    return this.stalled ? new Promise(() => {}) : Promise.resolve({ rows: [] });
  }
  escapeIdentifier(name: string): string {
    return `"${name}"`;
  }
  end(): Promise<void> {
    return Promise.resolve();
  }
}

afterEach(() => vi.useRealTimers());

describe('the listening connection', () => {
  it('is fresh while it answers its heartbeats, and stops being fresh within 3 s of a stall, before it is taken for down', async () => {
    vi.useFakeTimers();
    const client = new StallingClient();
    let downs = 0;
    const notifications = new Notifications(() => client as unknown as pg.Client, 'loreforge_callers', () => {}, () => (downs += 1));
    await notifications.start();
    expect(notifications.fresh).toBe(true);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(notifications.fresh).toBe(true);

    client.stalled = true;
    await vi.advanceTimersByTimeAsync(3000);
    expect(notifications.listening).toBe(true);
    expect(notifications.fresh).toBe(false);
    expect(downs).toBe(0);

    // A notice is an answer too.
    client.emit('notification', { channel: 'loreforge_callers', payload: 'u:1' });
    expect(notifications.fresh).toBe(true);
    await vi.advanceTimersByTimeAsync(3000);
    expect(notifications.fresh).toBe(false);

    await vi.advanceTimersByTimeAsync(5000);
    expect(downs).toBe(1);
    expect(notifications.listening).toBe(false);
    await notifications.close();
  });

  it('goes down when a statement run on it stalls, or fails for a plan gone stale; not for another failure', async () => {
    vi.useFakeTimers();
    const client = new StallingClient();
    let downs = 0;
    const notifications = new Notifications(() => client as unknown as pg.Client, 'loreforge_callers', () => {}, () => (downs += 1));
    await notifications.start();
    const answer = client.query.bind(client);
    const failWith = (error: object) => {
      client.query = () => Promise.reject(Object.assign(new Error('failed'), error));
    };
    failWith({ code: '23505' });
    await expect(notifications.query({ text: 'select 1' })).rejects.toThrow('failed');
    expect([downs, notifications.listening]).toEqual([0, true]);
    failWith({ code: '0A000', message: 'cached plan must not change result type' });
    await expect(notifications.query({ text: 'select 1' })).rejects.toThrow('cached plan');
    expect([downs, notifications.listening]).toEqual([1, false]);

    // It listens again (a new connection, which prepares its statements anew); then one that stalls.
    client.query = answer;
    await vi.advanceTimersByTimeAsync(1000);
    expect(notifications.listening).toBe(true);
    client.stalled = true;
    const stalled = notifications.query({ text: 'select 1' });
    await vi.advanceTimersByTimeAsync(5000);
    expect([downs, notifications.listening]).toEqual([2, false]);
    void stalled;
    await notifications.close();
  });
});
