// The public surface: exactly these runtime exports, no more (adding one is a deliberate, reviewed change).

describe('public surface', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const lib = require('../lib') as Record<string, unknown>;

  it('exports exactly the documented values', () => {
    expect(Object.keys(lib).sort()).toEqual([
      'ErrorCode',
      'FacilitatorError',
      'JsonRpcError',
      'LOG_LEVELS',
      'McpConfigError',
      'MemoryEventStore',
      'MemoryMessageBus',
      'MemorySessionStore',
      'MemoryTaskStore',
      'SUPPORTED_PROTOCOL_VERSIONS',
      'audioContent',
      'embeddedResource',
      'guardFor',
      'imageContent',
      'introspectionVerifier',
      'jwtVerifier',
      'mcpRouter',
      'oidcUpstream',
      'prompt',
      'resource',
      'resourceLink',
      'textContent',
      'tool',
      'x402Facilitator',
      'x402Guard',
    ]);
  });

  it('has no default export (named exports only)', () => {
    expect(lib).not.toHaveProperty('default');
  });

  it.each([
    ['mcpRouter'],
    ['jwtVerifier'],
    ['introspectionVerifier'],
    ['oidcUpstream'],
    ['guardFor'],
    ['x402Guard'],
    ['x402Facilitator'],
    ['FacilitatorError'],
    ['McpConfigError'],
    ['JsonRpcError'],
    ['MemorySessionStore'],
    ['MemoryEventStore'],
    ['MemoryMessageBus'],
    ['MemoryTaskStore'],
    ['audioContent'],
    ['embeddedResource'],
    ['imageContent'],
    ['resourceLink'],
    ['textContent'],
  ])('%s is a function', (name) => {
    expect(typeof lib[name]).toBe('function');
  });

  it('exports the expected constants', () => {
    expect(lib.SUPPORTED_PROTOCOL_VERSIONS).toEqual(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
    expect(lib.ErrorCode).toEqual({
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
      InternalError: -32603,
      ServerError: -32000,
      ResourceNotFound: -32002,
      HeaderMismatch: -32020,
      MissingRequiredClientCapability: -32021,
      UnsupportedProtocolVersion: -32022,
    });
  });

  // STYLE §3.2: no module-level mutable state. These objects are read by every router (isSupportedVersion reads
  // the version list), so a caller who could push to them would change the behaviour of all routers at once.
  it.each([['SUPPORTED_PROTOCOL_VERSIONS'], ['ErrorCode']])('%s is frozen', (name) => {
    expect(Object.isFrozen(lib[name])).toBe(true);
  });
});
