// MCP content blocks (text, image, audio, embedded resource, resource link) and the helpers that build them.

/** Hints for the client about a content block (who it is for, how important it is). */
export interface ContentAnnotations {
  /** Who the content is for: the user, the model (`assistant`), or both. */
  audience?: ('user' | 'assistant')[];
  /** How much it matters, from 0 (optional) to 1 (required). */
  priority?: number;
  /** When it last changed, as an ISO 8601 timestamp. */
  lastModified?: string;
}

interface BlockBase {
  /** Hints for the client about audience, priority and age. */
  annotations?: ContentAnnotations;
  /** Extra data for clients that know its keys; passed through untouched. */
  _meta?: Record<string, unknown>;
}

/** Text. */
export interface TextContent extends BlockBase {
  /** The block's kind: always `'text'`. */
  type: 'text';
  /** The text itself. */
  text: string;
}

/** An image, base64-encoded. */
export interface ImageContent extends BlockBase {
  /** The block's kind: always `'image'`. */
  type: 'image';
  /** The image bytes, base64-encoded. */
  data: string;
  /** Its media type: `image/png`, `image/jpeg`, …. */
  mimeType: string;
}

/** Audio, base64-encoded (MCP 2025-03-26 and later). */
export interface AudioContent extends BlockBase {
  /** The block's kind: always `'audio'`. */
  type: 'audio';
  /** The audio bytes, base64-encoded. */
  data: string;
  /** Its media type: `audio/wav`, `audio/mpeg`, …. */
  mimeType: string;
}

/** The contents of one resource: text or a base64 blob. */
export type ResourceContents =
  | {
      /** The URI these contents were read from. */
      uri: string;
      /** Their media type, when known. */
      mimeType?: string;
      /** The contents as text. */
      text: string;
      /** Extra data for clients that know its keys; passed through untouched. */
      _meta?: Record<string, unknown>;
    }
  | {
      /** The URI these contents were read from. */
      uri: string;
      /** Their media type, when known. */
      mimeType?: string;
      /** The contents as bytes, base64-encoded. */
      blob: string;
      /** Extra data for clients that know its keys; passed through untouched. */
      _meta?: Record<string, unknown>;
    };

/** A resource embedded in a message or tool result. */
export interface EmbeddedResource extends BlockBase {
  /** The block's kind: always `'resource'`. */
  type: 'resource';
  /** The resource's contents, carried inline. */
  resource: ResourceContents;
}

/** A link to a resource the client may read (MCP 2025-06-18 and later). */
export interface ResourceLink extends BlockBase {
  /** The block's kind: always `'resource_link'`. */
  type: 'resource_link';
  /** The resource's URI, for the client's `resources/read`. */
  uri: string;
  /** The resource's name, as its listing gives it. */
  name: string;
  /** A display name for people. */
  title?: string;
  /** What the resource holds, for the model. */
  description?: string;
  /** Its media type, when known. */
  mimeType?: string;
  /** Its size in bytes, when known, so a client can decide whether to read it. */
  size?: number;
}

/** Any content block a tool result or prompt message may hold. */
export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink;

/** Binary data as given by a caller: base64 text, or bytes that are encoded here. */
export type BinaryData = string | Uint8Array;

const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

/** True for an object that looks like a content block (has a known `type`). */
export function isContentBlock(value: unknown): value is ContentBlock {
  return typeof value === 'object' && value !== null && CONTENT_TYPES.has((value as { type?: unknown }).type as string);
}

/** Base64 of bytes; base64 text is passed through unchanged. */
export function toBase64(data: BinaryData): string {
  return typeof data === 'string'
    ? data
    : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
}

/**
 * A text content block.
 *
 * @example
 * ```ts
 * return { content: [textContent('Done')] };
 * ```
 */
export function textContent(text: string, annotations?: ContentAnnotations): TextContent {
  return annotations ? { type: 'text', text, annotations } : { type: 'text', text };
}

/**
 * An image content block.
 *
 * @param data - base64 text, or the bytes (a Buffer)
 * @param mimeType - e.g. `image/png`
 * @example
 * ```ts
 * return { content: [imageContent(await fs.readFile('chart.png'), 'image/png')] };
 * ```
 */
export function imageContent(data: BinaryData, mimeType: string): ImageContent {
  return { type: 'image', data: toBase64(data), mimeType };
}

/**
 * An audio content block.
 *
 * @param data - base64 text, or the bytes
 * @param mimeType - e.g. `audio/wav`
 * @example
 * ```ts
 * return { content: [audioContent(wavBytes, 'audio/wav')] };
 * ```
 */
export function audioContent(data: BinaryData, mimeType: string): AudioContent {
  return { type: 'audio', data: toBase64(data), mimeType };
}

/**
 * An embedded resource: text when `text` is given, else a base64 blob.
 *
 * @example
 * ```ts
 * embeddedResource({ uri: 'docs://readme', mimeType: 'text/markdown', text: '# Hi' })
 * ```
 */
export function embeddedResource(resource: {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: BinaryData;
}): EmbeddedResource {
  const { uri, mimeType, text, blob } = resource;
  const base = mimeType === undefined ? { uri } : { uri, mimeType };
  return {
    type: 'resource',
    resource: text !== undefined ? { ...base, text } : { ...base, blob: toBase64(blob ?? '') },
  };
}

/**
 * A link to a resource the client can read later.
 *
 * @example
 * ```ts
 * resourceLink({ uri: 'users://42/profile', name: 'profile of user 42', mimeType: 'application/json' })
 * ```
 */
export function resourceLink(link: Omit<ResourceLink, 'type'>): ResourceLink {
  return { type: 'resource_link', ...link };
}
