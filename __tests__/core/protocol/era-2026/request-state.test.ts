// The requestState codec of input_required results: round trip, tampering, expiry, another call's or caller's state, the option checks.

import { ErrorCode, JsonRpcError, McpConfigError, mcpRouter } from '../../../../lib';
import {
  createRequestStateCodec,
  MAX_REQUEST_STATE_CHARS,
  resolveInputRequired,
  type StateBinding,
} from '../../../../lib/core/protocol/era-2026/request-state';

const KEY = 'k'.repeat(32);
const CALL: StateBinding = {
  principal: 'alice',
  method: 'tools/call',
  item: 'book',
  arguments: { day: 'mon', seats: 2 },
};
const ANSWERS = { confirm: { action: 'accept', content: { ok: true } } };

function refusal(open: () => unknown): JsonRpcError {
  try {
    open();
  } catch (err) {
    expect(err).toBeInstanceOf(JsonRpcError);
    return err as JsonRpcError;
  }
  throw new Error('the state was accepted');
}

describe('createRequestStateCodec', () => {
  let clock = 1_000_000;
  const codec = createRequestStateCodec(resolveInputRequired({ stateKey: KEY, stateTtlMs: 60_000 }), () => clock);

  beforeEach(() => {
    clock = 1_000_000;
  });

  it('opens what it sealed, for the same call, with the answers it carries', () => {
    const state = codec.seal(CALL, ANSWERS);
    expect(typeof state).toBe('string');
    expect(codec.open(state, CALL)).toEqual(ANSWERS);
  });

  it('binds a digest of the arguments, whatever order their keys come in', () => {
    const state = codec.seal(CALL, ANSWERS);
    expect(codec.open(state, { ...CALL, arguments: { seats: 2, day: 'mon' } })).toEqual(ANSWERS);
  });

  it.each([
    ['a character appended', (state: string) => `${state}-TAMPERED`],
    [
      'the payload changed',
      (state: string) =>
        `${Buffer.from(JSON.stringify({ v: 1, exp: 9e15, call: 'x', answers: {} })).toString('base64url')}${state.slice(state.indexOf('.'))}`,
    ],
    ['the MAC changed', (state: string) => `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`],
    ['no MAC', (state: string) => state.slice(0, state.indexOf('.'))],
    ['an empty string', () => ''],
    ['not base64', () => '%%%.%%%'],
  ])('refuses a state with %s: -32602 saying it failed its integrity check', (_case, tamper) => {
    const error = refusal(() => codec.open(tamper(codec.seal(CALL, ANSWERS)), CALL));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toMatch(/integrity check/);
  });

  it('refuses a state sealed with another key (another instance, or a restart with the random default)', () => {
    const other = createRequestStateCodec(resolveInputRequired(undefined));
    expect(refusal(() => codec.open(other.seal(CALL, ANSWERS), CALL)).message).toMatch(/integrity check/);
  });

  it('accepts a state sealed by another instance that shares the key', () => {
    const twin = createRequestStateCodec(resolveInputRequired({ stateKey: Buffer.from(KEY) }), () => clock);
    expect(codec.open(twin.seal(CALL, ANSWERS), CALL)).toEqual(ANSWERS);
  });

  it('refuses a state once its time is up, and takes it just before', () => {
    const state = codec.seal(CALL, ANSWERS);
    clock += 59_999;
    expect(codec.open(state, CALL)).toEqual(ANSWERS);
    clock += 1;
    const error = refusal(() => codec.open(state, CALL));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toMatch(/expired/);
  });

  it.each([
    ['another principal', { ...CALL, principal: 'mallory' }],
    ['no principal', { ...CALL, principal: undefined }],
    ['another method', { ...CALL, method: 'prompts/get' }],
    ['another tool', { ...CALL, item: 'cancel' }],
    ['other arguments', { ...CALL, arguments: { day: 'tue', seats: 2 } }],
    ['no arguments', { ...CALL, arguments: undefined }],
  ])('refuses a state presented by %s: -32602, another call', (_case, binding) => {
    const error = refusal(() => codec.open(codec.seal(CALL, ANSWERS), binding));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toMatch(/another call/);
  });

  it.each([[42], [null], [{ state: 'x' }], [['a']]])('refuses a requestState that is not a string (%j)', (state) => {
    expect(refusal(() => codec.open(state, CALL)).message).toMatch(/must be the string/);
  });

  it('refuses an over-long state before computing anything over it', () => {
    expect(refusal(() => codec.open('a'.repeat(MAX_REQUEST_STATE_CHARS + 1), CALL)).message).toMatch(/longer than/);
  });

  it('will not seal answers larger than a state may carry (an internal error, not a state the client cannot send back)', () => {
    const error = refusal(() =>
      codec.seal(CALL, {
        long: { role: 'assistant', content: { type: 'text', text: 'x'.repeat(MAX_REQUEST_STATE_CHARS) } },
      }),
    );
    expect(error.code).toBe(ErrorCode.InternalError);
  });

  it('makes a different state for different answers (each round gets its own)', () => {
    expect(codec.seal(CALL, {})).not.toBe(codec.seal(CALL, ANSWERS));
  });
});

describe('resolveInputRequired', () => {
  it('defaults to a random 32-byte key per call and a 10-minute lifetime', () => {
    const a = resolveInputRequired(undefined);
    const b = resolveInputRequired({});
    expect(a.stateKey).toHaveLength(32);
    expect(a.stateKey.equals(b.stateKey)).toBe(false);
    expect(a.stateTtlMs).toBe(600_000);
  });

  it.each([
    [{ stateKey: 'short' }, /inputRequired\.stateKey/],
    [{ stateKey: 42 }, /inputRequired\.stateKey/],
    [{ stateTtlMs: 0 }, /inputRequired\.stateTtlMs/],
    [{ stateTtlMs: '1m' }, /inputRequired\.stateTtlMs/],
    [{ stateKye: KEY }, /inputRequired\.stateKye/],
    ['key', /inputRequired/],
  ])('refuses %j at boot, naming the option', (options, name) => {
    expect(() => resolveInputRequired(options as never)).toThrow(McpConfigError);
    expect(() => resolveInputRequired(options as never)).toThrow(name);
  });
});

describe('mcpRouter({ inputRequired })', () => {
  it('fails at boot on a bad value, naming the option', () => {
    expect(() => mcpRouter({ name: 't', version: '1', inputRequired: { stateKey: 'too short' } })).toThrow(
      /^mcpRouter: option 'inputRequired\.stateKey' must be/,
    );
    expect(() => mcpRouter({ name: 't', version: '1', inputRequired: { stateTtlMs: -1 } })).toThrow(
      /^mcpRouter: option 'inputRequired\.stateTtlMs'/,
    );
    expect(() => mcpRouter({ name: 't', version: '1', inputRequired: { stateTTL: 5 } as never })).toThrow(
      /^mcpRouter: unknown option 'inputRequired\.stateTTL'/,
    );
  });

  it('takes frozen options and leaves them as they were', () => {
    const inputRequired = Object.freeze({ stateKey: KEY, stateTtlMs: 1_000 });
    expect(() => mcpRouter({ name: 't', version: '1', inputRequired })).not.toThrow();
    expect(inputRequired).toEqual({ stateKey: KEY, stateTtlMs: 1_000 });
  });
});
