// Extensions a registration turns on (SEP-1724) appear under capabilities.extensions in every revision, beside the
// 2026 tasks extension, and are never withdrawn.

import { capabilitiesFor } from '../../../lib/core/protocol/methods/lifecycle-methods';
import { Registry } from '../../../lib/core/registry/registry';
import { createSchemaValidator } from '../../../lib/core/schema/validator';

const UI = 'io.modelcontextprotocol/ui';

it('declares nothing under extensions until something is declared', () => {
  const registry = new Registry(createSchemaValidator());
  expect(capabilitiesFor(registry, '2025-06-18', true)).not.toHaveProperty('extensions');
  expect(capabilitiesFor(registry, '2026-07-28', true)).not.toHaveProperty('extensions');
});

it.each(['2024-11-05', '2025-11-25', '2026-07-28'] as const)(
  'declares an extension with its settings in %s',
  (version) => {
    const registry = new Registry(createSchemaValidator());
    registry.declareExtension(UI);
    registry.declareExtension('io.modelcontextprotocol/skills', { directoryRead: true });
    expect(capabilitiesFor(registry, version, false).extensions).toEqual({
      [UI]: {},
      'io.modelcontextprotocol/skills': { directoryRead: true },
    });
  },
);

it('keeps the 2026 tasks extension beside a declared one', () => {
  const registry = new Registry(createSchemaValidator());
  registry.addTool({ name: 'slow', description: 'Runs long', task: 'optional', handler: () => 'done' });
  registry.declareExtension(UI);
  expect(Object.keys(capabilitiesFor(registry, '2026-07-28', true).extensions as object).sort()).toEqual([
    'io.modelcontextprotocol/tasks',
    UI,
  ]);
  expect(capabilitiesFor(registry, '2025-11-25', true)).toMatchObject({ tasks: {}, extensions: { [UI]: {} } });
});
