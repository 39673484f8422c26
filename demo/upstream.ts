// The demo's upstream: a tiny "notes" MCP server (this router on its own ephemeral port) that the store mounts
// with mcp.upstream({ prefix: 'notes', … }), so clients see notes__add_note and notes+notes://… beside the store's items.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { ErrorCode, JsonRpcError, mcpRouter, type McpRouter } from '../lib';

interface Note {
  readonly id: string;
  readonly title: string;
  readonly text: string;
  readonly tags: readonly string[];
}

/** The notes server's items; its data lives as long as the router. */
export function createNotesMcp(): McpRouter {
  const notes = new Map<string, Note>();
  let next = 1;
  const add = (title: string, text: string, tags: readonly string[] = []): Note => {
    const note = { id: `n${next++}`, title, text, tags };
    notes.set(note.id, note);
    return note;
  };
  add('Grinder settings', 'Espresso: 8 on the burr grinder; filter: 22.', ['brewing']);
  add('Supplier call', 'Ask the roaster about a second batch of filter roast before Friday.', ['stock']);

  const mcp = mcpRouter({
    name: 'demo-notes',
    version: '1.0.0',
    title: 'Shop notes',
    instructions: 'Short notes about the shop: add, search and read them.',
  });

  mcp.tool({
    name: 'add_note',
    title: 'Add a note',
    description: 'Write a short note; returns it with its id',
    inputSchema: {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1 },
        text: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['title', 'text'],
      additionalProperties: false,
    },
    handler: ({ title, text, tags }) => {
      const note = add(title, text, tags);
      mcp.notifyResourceUpdated('notes://all');
      return { ...note };
    },
  });

  mcp.tool({
    name: 'search_notes',
    title: 'Search notes',
    description: 'Notes whose title, text or tags contain a word (case-insensitive)',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    handler: ({ query }) => {
      const word = query.toLowerCase();
      return {
        notes: [...notes.values()].filter((note) =>
          [note.title, note.text, ...note.tags].some((field) => field.toLowerCase().includes(word)),
        ),
      };
    },
  });

  mcp.tool({
    name: 'reindex_notes',
    title: 'Reindex notes',
    description: 'Rebuild the search index, reporting progress per note (relayed through the gateway)',
    inputSchema: {
      type: 'object',
      properties: {
        delayMs: {
          type: 'integer',
          minimum: 0,
          maximum: 1000,
          default: 100,
          description: 'Pause per note, to watch the progress',
        },
      },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true },
    async handler({ delayMs = 100 }, ctx) {
      const all = [...notes.values()];
      await ctx.log('info', `Reindexing ${all.length} notes`, 'notes');
      for (const [index, note] of all.entries()) {
        await sleep(delayMs, undefined, { signal: ctx.signal });
        await ctx.progress(index + 1, all.length, `Indexed ${note.title}`);
      }
      return { indexed: all.length };
    },
  });

  mcp.resource({
    uri: 'notes://all',
    name: 'all-notes',
    title: 'All notes',
    mimeType: 'application/json',
    read: () => JSON.stringify([...notes.values()]),
  });

  mcp.resourceTemplate({
    uriTemplate: 'notes://note/{id}',
    name: 'note',
    title: 'One note',
    mimeType: 'application/json',
    read: (uri, { id = '' }) => {
      const note = notes.get(id);
      if (!note) throw new JsonRpcError(ErrorCode.ResourceNotFound, `No note '${id}'.`, { uri });
      return JSON.stringify(note);
    },
    complete: { id: (prefix) => [...notes.keys()].filter((id) => id.startsWith(prefix)) },
  });

  mcp.prompt({
    name: 'summarize_notes',
    title: 'Summarize notes',
    description: 'Ask for a summary of the notes, optionally on one tag',
    arguments: [
      {
        name: 'tag',
        description: 'Only notes with this tag',
        complete: (prefix) =>
          [...new Set([...notes.values()].flatMap((note) => note.tags))].filter((tag) => tag.startsWith(prefix)),
      },
    ],
    get: ({ tag }) => `Summarize the notes in notes://all${tag ? ` tagged '${tag}'` : ''} as a short to-do list.`,
  });

  return mcp;
}

/** A running notes server. */
export interface NotesUpstream {
  /** Its MCP endpoint, on 127.0.0.1 and a port the system picked. */
  readonly url: string;
  /** Ends its sessions and stops listening. */
  close(): Promise<void>;
}

/** Starts the notes server on 127.0.0.1 and an ephemeral port; resolves once it listens. */
export async function startNotesUpstream(): Promise<NotesUpstream> {
  const mcp = createNotesMcp();
  const app = express();
  app.use('/mcp', mcp);
  const server: Server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    async close() {
      await mcp.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
