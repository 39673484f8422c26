// LazyAbort: an abort controller whose AbortSignal is made only when read, with listeners that fire once.

import { LazyAbort, type AbortSource } from '../../../lib/core/protocol/abort';

describe('LazyAbort', () => {
  it('makes its signal when read, and aborts it with the reason', () => {
    const abort = new LazyAbort();
    const { signal } = abort;
    expect(abort.signal).toBe(signal);
    expect(signal.aborted).toBe(false);
    const reason = new Error('gone');
    abort.abort(reason);
    expect([abort.aborted, abort.reason, signal.aborted, signal.reason]).toEqual([true, reason, true, reason]);
  });

  it('gives a signal read after the abort already aborted, with the same reason', () => {
    const abort = new LazyAbort();
    abort.abort('cancelled');
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBe('cancelled');
  });

  it('keeps the first reason, and defaults to an AbortError as AbortController does', () => {
    const abort = new LazyAbort();
    abort.abort();
    abort.abort(new Error('later'));
    expect(abort.reason).toBeInstanceOf(DOMException);
    expect((abort.reason as DOMException).name).toBe('AbortError');
  });

  it('calls each listener once, in order, except removed ones; none added after the abort', () => {
    const abort = new LazyAbort();
    const calls: string[] = [];
    const removed = (): number => calls.push('removed');
    abort.addEventListener('abort', () => calls.push('first'));
    abort.addEventListener('abort', removed);
    abort.addEventListener('abort', () => calls.push('second'));
    abort.removeEventListener('abort', removed);
    abort.abort();
    abort.abort();
    abort.addEventListener('abort', () => calls.push('late'));
    expect(calls).toEqual(['first', 'second']);
  });

  it('stands where the dispatcher takes an AbortSignal, and so does a real one', () => {
    const sources: AbortSource[] = [new LazyAbort(), new AbortController().signal];
    expect(sources.map((source) => source.aborted)).toEqual([false, false]);
  });
});
