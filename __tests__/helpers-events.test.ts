// helpers/events: a wait on an event ends when the event comes, and fails (does not hang) when it never does.

import { Signal, within } from './helpers/events';

describe('within', () => {
  it('resolves and rejects as the promise does', async () => {
    await expect(within(Promise.resolve(7), 'seven')).resolves.toBe(7);
    await expect(within(Promise.reject(new Error('no')), 'a refusal')).rejects.toThrow('no');
  });

  it('rejects naming what it waited for once the deadline passed, even under fake timers', async () => {
    jest.useFakeTimers();
    try {
      await expect(within(new Promise(() => undefined), 'nothing', 50)).rejects.toThrow(
        'timed out waiting for nothing',
      );
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('Signal', () => {
  it('resolves at once when the condition already holds, else at the telling that makes it hold', async () => {
    const signal = new Signal();
    let count = 0;
    await signal.when(() => count === 0, 'zero');
    const two = signal.when(() => count === 2, 'two');
    let settled = false;
    void two.then(() => (settled = true));
    count = 1;
    signal.notify();
    await Promise.resolve();
    expect(settled).toBe(false);
    count = 2;
    signal.notify('an argument a listener passes');
    await expect(two).resolves.toBeUndefined();
  });

  it('rejects naming what it waited for when no telling makes the condition hold in time', async () => {
    const signal = new Signal();
    const wait = signal.when(() => false, 'the impossible', 50);
    signal.notify();
    await expect(wait).rejects.toThrow('timed out waiting for the impossible');
  });

  it('rejects with what the condition threw', async () => {
    const signal = new Signal();
    let broken = false;
    const wait = signal.when(() => {
      if (broken) throw new Error('condition failed');
      return false;
    }, 'a broken condition');
    broken = true;
    signal.notify();
    await expect(wait).rejects.toThrow('condition failed');
  });
});
