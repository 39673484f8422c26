// What a tool call, resource read and prompt get end with: the results guards see and handlers' values become.

import type { ContentBlock, ResourceContents } from './content';

/** The result of `tools/call`. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** The result of `resources/read`. */
export interface ReadResourceResult {
  contents: ResourceContents[];
}

/** The result of `prompts/get`. */
export interface GetPromptResult {
  description?: string;
  messages: { role: 'user' | 'assistant'; content: ContentBlock }[];
}

/** The `tools/list` entry of a tool, exactly as sent (before per-version shaping). */
export type ToolDescriptor = Readonly<Record<string, unknown>> & { readonly name: string };
