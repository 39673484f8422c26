// The `telemetry` option: checked at boot like every other option, and never written to.

import { McpConfigError, mcpRouter } from '../../../lib';

describe('telemetry option', () => {
  it.each([
    ['a string', 'yes', /^mcpRouter: option 'telemetry' must be \{ recordArguments\?, recordResults\? \} or a boolean/],
    [
      'a non-boolean recordArguments',
      { recordArguments: 'yes' },
      /^mcpRouter: option 'telemetry.recordArguments' must be true or false/,
    ],
    [
      'a non-boolean recordResults',
      { recordResults: 1 },
      /^mcpRouter: option 'telemetry.recordResults' must be true or false/,
    ],
    ['an unknown key', { recordArgs: true }, /^mcpRouter: unknown option 'telemetry.recordArgs'/],
  ])('rejects %s', (_label, telemetry, message) => {
    const create = (): unknown => mcpRouter({ name: 't', version: '1', telemetry: telemetry as never });
    expect(create).toThrow(McpConfigError);
    expect(create).toThrow(message);
  });

  it.each([[true], [false], [{}], [{ recordArguments: true, recordResults: false }]])(
    'accepts %j and leaves it unchanged',
    (telemetry) => {
      const given = typeof telemetry === 'object' ? Object.freeze({ ...telemetry }) : telemetry;
      expect(() => mcpRouter({ name: 't', version: '1', telemetry: given })).not.toThrow();
    },
  );
});
