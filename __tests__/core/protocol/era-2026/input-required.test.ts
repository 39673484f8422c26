// The input_required strategy: which methods may ask, keys, gathering asks, answers from the retry and the sealed state, ending a run.

import { ErrorCode, JsonRpcError } from '../../../../lib';
import {
  createInputRequired,
  InputRound,
  MAX_INPUT_RESPONSES,
} from '../../../../lib/core/protocol/era-2026/input-required';
import { resolveInputRequired } from '../../../../lib/core/protocol/era-2026/request-state';

const service = createInputRequired(resolveInputRequired({ stateKey: 's'.repeat(32) }));
const NEVER = new AbortController().signal;
const NAME = { action: 'accept', content: { name: 'Ada' } };
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' };
const ROOTS = { roots: [{ uri: 'file:///work' }] };

function call(params: Record<string, unknown> = {}, method = 'tools/call') {
  return { jsonrpc: '2.0' as const, id: 1, method, params: { name: 'book', arguments: { day: 'mon' }, ...params } };
}

function roundOf(params: Record<string, unknown> = {}, principal?: string): InputRound {
  const round = service.begin(call(params), principal);
  if (!(round instanceof InputRound)) throw new Error(`no round: ${String(round)}`);
  return round;
}

const elicit = (round: InputRound, key?: string) =>
  round.request('elicitation/create', { message: 'Name?' }, 1000, NEVER, key);
const sample = (round: InputRound, key?: string) =>
  round.request('sampling/createMessage', { messages: [], maxTokens: 5 }, 1000, NEVER, key);
const roots = (round: InputRound, key?: string) => round.request('roots/list', undefined, 1000, NEVER, key);

describe('createInputRequired().begin', () => {
  it('gives a round to tools/call, prompts/get and resources/read only (MRTR: no other method may answer input_required)', () => {
    for (const method of ['tools/call', 'prompts/get', 'resources/read'])
      expect(service.begin(call({}, method), undefined)).toBeInstanceOf(InputRound);
    for (const method of ['tools/list', 'prompts/list', 'resources/list', 'completion/complete', 'server/discover'])
      expect(service.begin(call({}, method), undefined)).toBeUndefined();
  });

  it.each([[null], [12], ['x'], [[NAME]]])(
    'answers -32602 for inputResponses that are not an object (%j), before any handler runs',
    (inputResponses) => {
      const error = service.begin(call({ inputResponses }), undefined);
      expect(error).toBeInstanceOf(JsonRpcError);
      expect((error as JsonRpcError).code).toBe(ErrorCode.InvalidParams);
    },
  );

  it(`answers -32602 for more than ${MAX_INPUT_RESPONSES} inputResponses`, () => {
    const many = Object.fromEntries(Array.from({ length: MAX_INPUT_RESPONSES + 1 }, (_, i) => [`k${i}`, NAME]));
    expect((service.begin(call({ inputResponses: many }), undefined) as JsonRpcError).message).toMatch(
      /more than 64 keys/,
    );
  });

  it('answers -32602 for a tampered requestState, and for one minted for another caller', async () => {
    const first = roundOf({}, 'alice');
    void elicit(first, 'who');
    const { requestState } = await first.settle(new Promise(() => undefined));
    expect((service.begin(call({ requestState: `${String(requestState)}x` }), 'alice') as JsonRpcError).code).toBe(
      ErrorCode.InvalidParams,
    );
    expect((service.begin(call({ requestState }), 'mallory') as JsonRpcError).message).toMatch(/another call/);
    expect(service.begin(call({ requestState }), 'alice')).toBeInstanceOf(InputRound);
  });
});

describe('InputRound', () => {
  it('ends the call with every ask made together, keyed by call order (elicitation-1, sampling-1, roots-1, elicitation-2)', async () => {
    const round = roundOf();
    const handler = Promise.all([elicit(round), sample(round), roots(round), elicit(round)]).then(() => ({
      content: [],
    }));
    const result = await round.settle(handler);
    expect(result.resultType).toBe('input_required');
    expect(result.inputRequests).toEqual({
      'elicitation-1': { method: 'elicitation/create', params: { message: 'Name?' } },
      'sampling-1': { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
      'roots-1': { method: 'roots/list', params: {} },
      'elicitation-2': { method: 'elicitation/create', params: { message: 'Name?' } },
    });
    expect(typeof result.requestState).toBe('string');
    expect(result).not.toHaveProperty('ttlMs');
  });

  it('asks only the first of sequential asks: the second is asked on the retry that answered the first', async () => {
    const round = roundOf();
    const result = await round.settle(
      (async () => {
        await elicit(round, 'step1');
        await elicit(round, 'step2');
        return { content: [] };
      })(),
    );
    expect(Object.keys(result.inputRequests as object)).toEqual(['step1']);
  });

  it('resolves asks the retry answered (extra keys ignored) and gives the handler its result', async () => {
    const round = roundOf({
      inputResponses: { 'elicitation-1': NAME, 'sampling-1': SAMPLED, who: ROOTS, unrelated: { anything: true } },
    });
    const result = await round.settle(
      (async () => {
        const [name, said, listed] = await Promise.all([elicit(round), sample(round), roots(round, 'who')]);
        return {
          content: [
            { type: 'text', text: `${JSON.stringify(name)} ${JSON.stringify(said)} ${JSON.stringify(listed)}` },
          ],
        };
      })(),
    );
    expect(result.resultType).toBeUndefined();
    expect(result.content).toEqual([
      { type: 'text', text: `${JSON.stringify(NAME)} ${JSON.stringify(SAMPLED)} ${JSON.stringify(ROOTS)}` },
    ]);
  });

  it('asks again for what the retry left out (a missing or misnamed key is a new input_required, not an error)', async () => {
    const round = roundOf({ inputResponses: { wrong_key: NAME } });
    const result = await round.settle(elicit(round, 'user_name'));
    expect(Object.keys(result.inputRequests as object)).toEqual(['user_name']);
  });

  it.each([
    ['elicitation/create', { action: 'maybe' }],
    ['sampling/createMessage', { text: 'Paris' }],
    ['roots/list', { roots: 'file:///' }],
    ['elicitation/create', 12345],
  ] as const)('rejects a %s answer of the wrong shape (%j) with -32602', async (method, answer) => {
    const round = roundOf({ inputResponses: { k: answer } });
    await expect(round.request(method, {}, 1000, NEVER, 'k')).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining('inputResponses.k'),
    });
  });

  it('carries the answers used into the next requestState, so a later round need not ask them again', async () => {
    const first = roundOf({ inputResponses: { step1: NAME } });
    const r1 = await first.settle(
      (async () => {
        await elicit(first, 'step1');
        await elicit(first, 'step2');
        return {};
      })(),
    );
    expect(Object.keys(r1.inputRequests as object)).toEqual(['step2']);
    const second = roundOf({ inputResponses: { step2: { action: 'decline' } }, requestState: r1.requestState });
    const seen: unknown[] = [];
    const r2 = await second.settle(
      (async () => {
        seen.push(await elicit(second, 'step1'), await elicit(second, 'step2'));
        return { done: true };
      })(),
    );
    expect(r2).toEqual({ done: true });
    expect(seen).toEqual([NAME, { action: 'decline' }]);
  });

  it('lets a sealed answer win over one the retry sends again under the same key', async () => {
    const first = roundOf({ inputResponses: { step1: NAME } });
    const r1 = await first.settle(
      (async () => {
        await elicit(first, 'step1');
        return elicit(first, 'step2');
      })(),
    );
    const second = roundOf({ inputResponses: { step1: { action: 'cancel' } }, requestState: r1.requestState });
    await expect(elicit(second, 'step1')).resolves.toEqual(NAME);
  });

  it('rejects the asks still waiting once the call ended (so finally blocks run), and asks made after', async () => {
    const round = roundOf();
    let cleanedUp = false;
    const handler = (async () => {
      try {
        await elicit(round);
        return {};
      } finally {
        cleanedUp = true;
      }
    })();
    await round.settle(handler);
    round.end();
    await expect(handler).rejects.toThrow(/ended with an input_required result/);
    expect(cleanedUp).toBe(true);
    await expect(sample(round)).rejects.toThrow(/ended with an input_required result/);
  });

  it('passes through what the handler throws', async () => {
    const round = roundOf();
    await expect(round.settle(Promise.reject(new JsonRpcError(ErrorCode.InvalidParams, 'bad')))).rejects.toThrow('bad');
  });

  it.each([[''], ['k'.repeat(129)], [42]])('refuses a key that is not a short non-empty string (%j)', async (key) => {
    await expect(elicit(roundOf(), key as string)).rejects.toThrow(TypeError);
  });
});
