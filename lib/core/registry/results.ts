// What a tool call, resource read and prompt get end with: the results guards see and handlers' values become.

import type { ContentBlock, ResourceContents } from './content';

/** The result of `tools/call`. */
export interface CallToolResult {
  /** What the model reads: text and other content blocks. */
  content: ContentBlock[];
  /** The result as JSON, checked against the tool's `outputSchema` when it has one. */
  structuredContent?: Record<string, unknown>;
  /** True when the tool failed (bad arguments, a throwing handler); `content` then says why, for the model. */
  isError?: boolean;
  /** Extra data for clients that know its keys (a payment receipt, a guard's note). */
  _meta?: Record<string, unknown>;
}

/** The result of `resources/read`. */
export interface ReadResourceResult {
  /** The resource's contents: one item, or several for a resource made of parts. */
  contents: ResourceContents[];
}

/** The result of `prompts/get`. */
export interface GetPromptResult {
  /** What the prompt is for, when it says. */
  description?: string;
  /** The messages the client puts in its conversation, in order. */
  messages: {
    /** Who says it: the user or the model (`assistant`). */
    role: 'user' | 'assistant';
    /** What is said. */
    content: ContentBlock;
  }[];
}

/** The `tools/list` entry of a tool, exactly as sent (before per-version shaping). */
export type ToolDescriptor = Readonly<Record<string, unknown>> & { readonly name: string };
