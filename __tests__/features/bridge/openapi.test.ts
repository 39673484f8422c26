// Tools from the OpenAPI 3 document an app already serves: one per operation, dispatched through the app.

import express from 'express';
import { McpConfigError, mcpRouter } from '../../../lib';
import { routesFromOpenApi } from '../../../lib/features/bridge/openapi';
import { connectClient, type ConnectedClient } from '../../helpers/connect-client';

const DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1.0.0' },
  components: {
    schemas: {
      NewPet: {
        type: 'object',
        properties: { name: { type: 'string' }, tag: { $ref: '#/components/schemas/Tag' } },
        required: ['name'],
      },
      Tag: { type: 'string', enum: ['cat', 'dog'] },
    },
  },
  paths: {
    '/pets': {
      get: {
        operationId: 'listPets',
        summary: 'List pets',
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
      },
      post: {
        operationId: 'createPet',
        summary: 'Add a pet',
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } } },
      },
    },
    '/pets/{petId}': {
      parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' }, description: 'The pet' }],
      get: { summary: 'Fetch a pet' },
      delete: { operationId: 'deletePet', summary: 'Remove a pet', 'x-mcp': false },
    },
    '/internal/metrics': { 'x-mcp': false, get: { operationId: 'metrics' } },
  },
};

describe('routesFromOpenApi', () => {
  it('makes one route per operation, resolving $refs and skipping x-mcp: false', () => {
    expect(routesFromOpenApi(DOCUMENT)).toEqual([
      {
        method: 'GET',
        path: '/pets',
        name: 'listPets',
        description: 'List pets',
        input: { query: { type: 'object', properties: { limit: { type: 'integer' } }, required: [] } },
      },
      {
        method: 'POST',
        path: '/pets',
        name: 'createPet',
        description: 'Add a pet',
        input: {
          body: {
            type: 'object',
            properties: { name: { type: 'string' }, tag: { type: 'string', enum: ['cat', 'dog'] } },
            required: ['name'],
          },
        },
      },
      {
        method: 'GET',
        path: '/pets/:petId',
        description: 'Fetch a pet',
        input: {
          params: {
            type: 'object',
            properties: { petId: { type: 'string', description: 'The pet' } },
            required: ['petId'],
          },
        },
      },
    ]);
  });

  it.each([
    [{}],
    [{ openapi: '2.0', paths: {} }],
    [null],
    [{ openapi: '3.1.0', paths: { '/x': { get: { parameters: [{ $ref: '#/nowhere' }] } } } }],
  ])('refuses %p', (document) => {
    expect(() => routesFromOpenApi(document)).toThrow(McpConfigError);
  });
});

describe('mcp.exposeOpenApi', () => {
  let connected: ConnectedClient;
  beforeAll(async () => {
    const pets = [{ id: '1', name: 'Rex', tag: 'dog' }];
    const mcp = mcpRouter({ name: 'pets', version: '1.0.0', rateLimit: false });
    const app = express();
    app.use('/mcp', mcp);
    app.use(express.json());
    app.get('/pets', (req, res) => res.json({ pets: pets.slice(0, Number(req.query.limit ?? 10)) }));
    app.post('/pets', (req, res) => {
      const pet = { id: String(pets.length + 1), ...req.body };
      pets.push(pet);
      res.status(201).json(pet);
    });
    app.get('/pets/:petId', (req, res) => {
      const pet = pets.find((candidate) => candidate.id === req.params.petId);
      if (pet) res.json(pet);
      else res.status(404).json({ error: 'no such pet' });
    });
    mcp.exposeOpenApi(app, DOCUMENT);
    connected = await connectClient(app);
  });
  afterAll(() => connected?.close());

  it('lists the operations as tools and calls them through the app', async () => {
    const { client } = connected;
    expect((await client.listTools()).tools.map((listed) => listed.name)).toEqual([
      'listPets',
      'createPet',
      'get_pets_by_pet_id',
    ]);
    expect(
      (await client.callTool({ name: 'createPet', arguments: { name: 'Tom', tag: 'cat' } })).structuredContent,
    ).toEqual({ id: '2', name: 'Tom', tag: 'cat' });
    expect((await client.callTool({ name: 'listPets', arguments: { limit: 1 } })).structuredContent).toEqual({
      pets: [{ id: '1', name: 'Rex', tag: 'dog' }],
    });
    expect(
      (await client.callTool({ name: 'get_pets_by_pet_id', arguments: { petId: '2' } })).structuredContent,
    ).toEqual({ id: '2', name: 'Tom', tag: 'cat' });
    const invalid = await client.callTool({ name: 'createPet', arguments: { name: 'Nemo', tag: 'fish' } });
    expect(invalid.isError).toBe(true);
  });
});
