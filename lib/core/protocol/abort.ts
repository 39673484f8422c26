// Aborts that cost nothing until a handler looks at its signal: every request has one, few ever read it.

/** What the dispatcher needs of the transport's abort: an `AbortSignal` has it, and so does {@link LazyAbort}. */
export interface AbortSource {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Anything that can be aborted with a reason: an `AbortController`, a {@link LazyAbort}. */
export interface Abortable {
  abort(reason?: unknown): void;
}

/**
 * An abort controller whose `AbortSignal` is only made when `signal` is read: Node builds an AbortSignal (an
 * EventTarget) on the first read of `controller.signal`, costly next to the rest of a request, and most handlers never
 * read it. Listeners added here are kept in an array and called once, like `{ once: true }` listeners of a signal;
 * none are added after the abort.
 */
export class LazyAbort implements AbortSource, Abortable {
  #aborted = false;
  #held = false;
  #reason: unknown = undefined;
  #controller: AbortController | undefined;
  #listeners: Array<() => void> | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** A real signal, made now if it was not (and aborted at once if this already is). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /**
   * From now on, aborts are ignored: the work has done what cannot be undone (a payment settlement sent), so it runs to
   * its end and answers (MCP cancellation: a receiver MAY ignore a request it cannot cancel).
   */
  hold(): void {
    this.#held = true;
  }

  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.#aborted || this.#held) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    for (const listener of listeners ?? []) listener();
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.#aborted) (this.#listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.#listeners?.indexOf(listener) ?? -1;
    if (index >= 0) this.#listeners?.splice(index, 1);
  }
}
