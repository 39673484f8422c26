// The "everything" fixture the official MCP conformance suite (@modelcontextprotocol/conformance) drives:
// exactly the tools, resources and prompts its server scenarios call, built only with the public API.
// Run it with `PORT=3001 tsx demo/everything.ts`, or through `npm run test:conformance`.

import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { audioContent, embeddedResource, imageContent, mcpRouter, textContent } from '../lib';
import { addTaskTools } from './everything-tasks';
import {
  DEFAULTS_SCHEMA,
  ENUMS_SCHEMA,
  JSON_SCHEMA_2020_12,
  PNG_BASE64,
  WAV,
  X_MCP_HEADER_SCHEMA,
} from './everything-content';
import { addInputRequiredFixtures } from './everything-input';

/** What the client answered to an elicitation, as text. */
function describeElicitation(result: Record<string, unknown>): string {
  return `Elicitation completed: action=${String(result.action)}, content=${JSON.stringify(result.content ?? {})}`;
}

/** Builds the fixture app (MCP at /mcp); exported so tests can start it on a free port. */
export function createEverythingApp(): express.Express {
  const mcp = mcpRouter({
    name: 'express-mcp-router-everything',
    version: '0.1.0',
    title: 'Conformance fixture',
    description: 'Everything the MCP conformance suite exercises, served by express-mcp-router',
  });

  // ----- tools -----

  mcp.tool({
    name: 'test_simple_text',
    description: 'Returns one text block',
    handler: () => 'This is a simple text response for testing.',
  });

  mcp.tool({
    name: 'test_image_content',
    description: 'Returns one image block (a 1x1 PNG)',
    handler: () => imageContent(PNG_BASE64, 'image/png'),
  });

  mcp.tool({
    name: 'test_audio_content',
    description: 'Returns one audio block (a minimal WAV file)',
    handler: () => audioContent(WAV, 'audio/wav'),
  });

  mcp.tool({
    name: 'test_embedded_resource',
    description: 'Returns one embedded text resource',
    handler: () =>
      embeddedResource({
        uri: 'test://embedded-resource',
        mimeType: 'text/plain',
        text: 'This is an embedded resource content.',
      }),
  });

  mcp.tool({
    name: 'test_multiple_content_types',
    description: 'Returns text, image and embedded resource blocks together',
    handler: () => ({
      content: [
        textContent('Multiple content types test:'),
        imageContent(PNG_BASE64, 'image/png'),
        embeddedResource({
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: JSON.stringify({ test: 'data', value: 123 }),
        }),
      ],
    }),
  });

  mcp.tool({
    name: 'test_tool_with_logging',
    description: 'Emits three info log messages, 50 ms apart, while it runs',
    handler: async (_args, ctx) => {
      await ctx.log('info', 'Tool execution started', 'everything');
      await sleep(50, undefined, { signal: ctx.signal });
      await ctx.log('info', 'Tool processing data', 'everything');
      await sleep(50, undefined, { signal: ctx.signal });
      await ctx.log('info', 'Tool execution completed', 'everything');
      return 'Tool with logging executed successfully';
    },
  });

  mcp.tool({
    name: 'test_tool_with_progress',
    description: 'Reports progress 0, 50 and 100 of 100 while it runs',
    handler: async (_args, ctx) => {
      for (const step of [0, 50, 100]) {
        if (step > 0) await sleep(50, undefined, { signal: ctx.signal });
        await ctx.progress(step, 100, `Completed step ${step} of 100`);
      }
      return `Progress reported for token ${JSON.stringify(ctx.meta?.progressToken ?? null)}`;
    },
  });

  mcp.tool({
    name: 'test_error_handling',
    description: 'Always fails: the error becomes an isError result',
    handler: () => {
      throw new Error('This tool intentionally returns an error for testing');
    },
  });

  mcp.tool({
    name: 'test_sampling',
    description: 'Asks the client to sample an LLM completion for the prompt (sampling/createMessage)',
    inputSchema: {
      type: 'object',
      properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } },
      required: ['prompt'],
    },
    handler: async ({ prompt }, ctx) => {
      const result = await ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: 100,
      });
      const content = result.content as { type?: unknown; text?: unknown } | undefined;
      return `LLM response: ${typeof content?.text === 'string' ? content.text : JSON.stringify(result)}`;
    },
  });

  mcp.tool({
    name: 'test_elicitation',
    description: 'Asks the user for a username and an email (elicitation/create)',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string', description: 'The message to show the user' } },
      required: ['message'],
    },
    handler: async ({ message }, ctx) => {
      const result = await ctx.elicit({
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: 'Your username' },
            email: { type: 'string', format: 'email', description: 'Your email address' },
          },
          required: ['username', 'email'],
        },
      });
      return describeElicitation(result);
    },
  });

  mcp.tool({
    name: 'test_elicitation_sep1034_defaults',
    description: 'Elicits a form whose fields all have defaults (SEP-1034)',
    handler: async (_args, ctx) =>
      describeElicitation(
        await ctx.elicit({
          message: 'Please review and update the form fields with defaults',
          requestedSchema: DEFAULTS_SCHEMA,
        }),
      ),
  });

  mcp.tool({
    name: 'test_elicitation_sep1330_enums',
    description: 'Elicits a form with every enum variant (SEP-1330)',
    handler: async (_args, ctx) =>
      describeElicitation(
        await ctx.elicit({ message: 'Please select options from the enum fields', requestedSchema: ENUMS_SCHEMA }),
      ),
  });

  mcp.tool({
    name: 'json_schema_2020_12_tool',
    description: 'Takes arguments described with JSON Schema 2020-12 features ($schema, $defs, $ref) (SEP-1613)',
    inputSchema: JSON_SCHEMA_2020_12,
    handler: (args) => `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`,
  });

  mcp.tool({
    name: 'test_reconnection',
    description: 'Closes its SSE stream mid-call; the result arrives after the client reconnects (SEP-1699)',
    handler: async (_args, ctx) => {
      ctx.closeStream();
      await sleep(100, undefined, { signal: ctx.signal });
      return 'Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.';
    },
  });

  // ----- MCP 2026-07-28 diagnostics (conformance server-stateless, http-custom-header-server-validation) -----

  mcp.tool({
    name: 'test_missing_capability',
    description: 'Needs the sampling capability: a 2026 request that does not declare it is refused with 400 -32021',
    handler: async (_args, ctx) => {
      const result = await ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: 'Reply with the single word: pong' } }],
        maxTokens: 16,
      });
      return `Sampling answered: ${JSON.stringify(result.content ?? result)}`;
    },
  });

  mcp.tool({
    name: 'test_streaming_elicitation',
    description: 'Answers on the request stream with its result only: no server-to-client request on a 2026 stream',
    handler: () => 'stream observed: result frames only, no top-level requests',
  });

  mcp.tool({
    name: 'test_logging_tool',
    description: 'Logs at debug, info and warning; a 2026 request hears them only if its _meta set a logLevel',
    handler: async (_args, ctx) => {
      await ctx.log('debug', 'test_logging_tool: debug', 'everything');
      await ctx.log('info', 'test_logging_tool: info', 'everything');
      await ctx.log('warning', 'test_logging_tool: warning', 'everything');
      return 'Logged at debug, info and warning';
    },
  });

  mcp.tool({
    name: 'test_x_mcp_header',
    description: 'Takes an argument mirrored into the Mcp-Param-Region header (SEP-2243)',
    inputSchema: X_MCP_HEADER_SCHEMA,
    handler: ({ region }) => `region=${region ?? '<none>'}`,
  });

  // Registering and removing an entry announces two list changes and leaves the list as it was.
  const listChanges = {
    tool: () =>
      mcp.tool({ name: 'test_transient_tool', description: 'Exists for an instant', handler: () => 'gone' }).remove(),
    prompt: () =>
      mcp.prompt({ name: 'test_transient_prompt', description: 'Exists for an instant', get: () => 'gone' }).remove(),
  };
  for (const [kind, change] of Object.entries(listChanges)) {
    mcp.tool({
      name: `test_trigger_${kind}_change`,
      description: `Changes the ${kind} list (adds and removes a ${kind}), so list_changed is announced`,
      handler: () => {
        change();
        return `${kind}s list_changed published`;
      },
    });
  }

  // ----- resources -----

  mcp.resource({
    uri: 'test://static-text',
    name: 'static-text',
    title: 'Static text resource',
    description: 'A fixed text resource',
    mimeType: 'text/plain',
    read: () => 'This is the content of the static text resource.',
  });

  mcp.resource({
    uri: 'test://static-binary',
    name: 'static-binary',
    title: 'Static binary resource',
    description: 'A fixed binary resource (a 1x1 PNG)',
    mimeType: 'image/png',
    read: () => Buffer.from(PNG_BASE64, 'base64'),
  });

  mcp.resourceTemplate({
    uriTemplate: 'test://template/{id}/data',
    name: 'template',
    title: 'Resource template',
    description: 'Data for one id, substituted from the URI',
    mimeType: 'application/json',
    read: (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
  });

  mcp.resource({
    uri: 'test://watched-resource',
    name: 'watched-resource',
    title: 'Watched resource',
    description: 'A resource clients may subscribe to',
    mimeType: 'text/plain',
    read: () => 'Watched resource content',
  });

  mcp.resource({
    uri: 'test://example-resource',
    name: 'example-resource',
    title: 'Example resource',
    description: 'The resource test_prompt_with_embedded_resource embeds',
    mimeType: 'text/plain',
    read: () => 'Example resource content.',
  });

  // ----- prompts -----

  mcp.prompt({
    name: 'test_simple_prompt',
    title: 'Simple prompt',
    description: 'A prompt without arguments',
    get: () => 'This is a simple prompt for testing.',
  });

  mcp.prompt({
    name: 'test_prompt_with_arguments',
    title: 'Prompt with arguments',
    description: 'A prompt with two required arguments',
    arguments: [
      {
        name: 'arg1',
        description: 'First test argument',
        required: true,
        complete: (prefix) => ['testValue1', 'testValue2', 'test', 'other'].filter((value) => value.startsWith(prefix)),
      },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
    get: ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
  });

  mcp.prompt({
    name: 'test_prompt_with_embedded_resource',
    title: 'Prompt with embedded resource',
    description: 'A prompt that embeds the resource named by resourceUri',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    get: ({ resourceUri }) => [
      {
        role: 'user',
        content: embeddedResource({
          uri: resourceUri ?? 'test://example-resource',
          mimeType: 'text/plain',
          text: 'Embedded resource content for testing.',
        }),
      },
      { role: 'user', content: 'Please process the embedded resource above.' },
    ],
  });

  mcp.prompt({
    name: 'test_prompt_with_image',
    title: 'Prompt with image',
    description: 'A prompt that includes an image',
    get: () => [
      { role: 'user', content: imageContent(PNG_BASE64, 'image/png') },
      { role: 'user', content: 'Please analyze the image above.' },
    ],
  });

  // ----- input_required (MCP 2026-07-28 MRTR): the input-required-result-* scenarios' tools and prompt -----
  addInputRequiredFixtures(mcp);
  // ----- long-running tasks (the conformance tasks-* scenarios) -----
  addTaskTools(mcp);
  // ----- skills (SEP-2640, the sep-2640-skills-* scenarios): the conformance folder of skills -----
  mcp.skills(path.resolve(__dirname, '../__tests__/conformance/skills'));

  const app = express();
  app.use('/mcp', mcp);
  return app;
}

if (require.main === module) {
  const port = Number(process.env.PORT ?? 3001);
  const host = '127.0.0.1';
  const fail = (err: Error): never => {
    console.error(`everything: cannot listen on ${host}:${port}: ${err.message}`);
    process.exit(1);
  };
  // Express 5 also calls the listen callback with the error (e.g. EADDRINUSE); Express 4 only emits it.
  const server = createEverythingApp().listen(port, host, (err?: Error) => {
    if (err) fail(err);
    else console.log(`MCP conformance fixture at http://${host}:${port}/mcp`);
  });
  server.on('error', fail);
}
