// The upstream client's wire helpers: the SSE reader (line endings, chunking, comments, the per-event cap), bounded body reads, Mcp-Name encoding.

import { decodeHeaderValue, encodeHeaderValue } from '../../../lib/core/protocol/era-2026/request-headers';
import { forwardedHeaders } from '../../../lib/features/gateway/mount/upstream-call';
import type { ResolvedUpstream } from '../../../lib/features/gateway/mount/upstream-options';
import { readSseData, readSseEvents } from '../../../lib/features/gateway/http-client/upstream-sse';
import { readBoundedText, UpstreamFault } from '../../../lib/features/gateway/http-client/http-body';

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function events(stream: ReadableStream<Uint8Array>, limit = 1024): Promise<string[]> {
  const found: string[] = [];
  for await (const data of readSseData(stream, limit)) found.push(data);
  return found;
}

describe('readSseData', () => {
  it('reads events ended by LF, CRLF (even split across chunks) and CR', async () => {
    expect(await events(streamOf('data: {"a":1}\n\n', 'data: {"b":2}\r', '\n\r\n', 'data: {"c":3}\r\r'))).toEqual([
      '{"a":1}',
      '{"b":2}',
      '{"c":3}',
    ]);
  });

  it('joins data lines with LF and skips comments, other fields, empty (priming) events and an unterminated last event', async () => {
    const body = streamOf(
      ': keep-alive\n\n',
      'id: 7\ndata:\n\n',
      'event: message\nid: 8\ndata: one\ndata:two\nretry: 10\n\n',
      'data: never dispatched',
    );
    expect(await events(body)).toEqual(['one\ntwo']);
  });

  it('readSseEvents keeps the last event id from event to event, priming events included, and ignores an id holding NULL', async () => {
    const found: { data: string; id: string | undefined }[] = [];
    const body = streamOf(
      'data: a\n\n',
      'id: 7\ndata:\n\n',
      'data: b\n\n',
      'id: 8\0\ndata: c\n\n',
      ': keep-alive\n\n',
      'id:\ndata: d\n\n',
    );
    for await (const event of readSseEvents(body, 1024)) found.push({ ...event });
    expect(found).toEqual([
      { data: 'a', id: undefined },
      { data: '', id: '7' },
      { data: 'b', id: '7' },
      { data: 'c', id: '7' },
      { data: 'd', id: '' },
    ]);
  });

  it('reads a multi-byte character split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: é\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 7));
        controller.enqueue(bytes.slice(7));
        controller.close();
      },
    });
    expect(await events(stream)).toEqual(['é']);
  });

  it('refuses an event over the cap, and a line over the cap that never ends', async () => {
    await expect(events(streamOf(`data: ${'x'.repeat(600)}\n`, `data: ${'y'.repeat(600)}\n\n`))).rejects.toThrow(
      new UpstreamFault('sent an event larger than 1024 bytes'),
    );
    await expect(events(streamOf(`data: ${'x'.repeat(2000)}`))).rejects.toThrow(
      new UpstreamFault('sent an event line larger than 1024 bytes'),
    );
  });
});

describe('readSseData and a leading byte order mark', () => {
  const bytes = (...chunks: number[][]): ReadableStream<Uint8Array> =>
    new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(Uint8Array.from(chunk));
        controller.close();
      },
    });
  const text = (value: string): number[] => [...Buffer.from(value)];

  it('ignores one BOM whole, or split across the first chunks, and keeps the line after it', async () => {
    for (const chunks of [
      [[0xef, 0xbb, 0xbf, ...text('data: x\n\n')]],
      [[0xef], [0xbb, 0xbf, ...text('data: x\n\n')]],
      [[0xef, 0xbb], [0xbf], text('data: x\n\n')],
    ]) {
      expect(await events(bytes(...chunks))).toEqual(['x']);
    }
  });

  it('keeps a second BOM, and bytes that only began like one', async () => {
    // After the first BOM, U+FEFF is text: the line "\uFEFFdata: x" names no field.
    expect(await events(bytes([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, ...text('data: x\n\ndata: y\n\n')]))).toEqual(['y']);
    expect(await events(bytes([0xef], text('data: z\n\n')))).toEqual([]);
    expect(await events(bytes(text('data: w\n\n')))).toEqual(['w']);
  });
});

describe('readSseData caps in UTF-8 bytes', () => {
  it('counts an event in bytes, not UTF-16 units: 600 "é" are 1200 bytes, over a 1024-byte cap', async () => {
    await expect(events(streamOf(`data: ${'é'.repeat(600)}\n\n`))).rejects.toThrow(
      new UpstreamFault('sent an event larger than 1024 bytes'),
    );
    expect(await events(streamOf(`data: ${'é'.repeat(500)}\n\n`))).toEqual(['é'.repeat(500)]);
  });

  it('refuses a 2 MB line without a newline, sent in 16 KB chunks, at a 1 MiB cap', async () => {
    const chunk = `data: ${'x'.repeat(16 * 1024 - 6)}`;
    const limit = 1024 * 1024;
    await expect(events(streamOf(...Array.from({ length: 128 }, () => chunk)), limit)).rejects.toThrow(
      new UpstreamFault(`sent an event line larger than ${limit} bytes`),
    );
  });
});

describe('readBoundedText', () => {
  it('reads a body up to the cap and refuses one byte more', async () => {
    expect(await readBoundedText(streamOf('abcd'), 4)).toBe('abcd');
    await expect(readBoundedText(streamOf('ab', 'cde'), 4)).rejects.toThrow(
      new UpstreamFault('sent a body larger than 4 bytes'),
    );
  });
});

describe('encodeHeaderValue', () => {
  it.each(['get_weather', 'file:///a b.txt', 'café', ' padded ', '', 'tab\there', '=?base64?SGk=?='])(
    'round-trips %j through the server-side decoder',
    (value) => {
      expect(decodeHeaderValue(encodeHeaderValue(value))).toBe(value);
    },
  );

  it('sends plain ASCII as is', () => {
    expect(encodeHeaderValue('get_weather')).toBe('get_weather');
    expect(encodeHeaderValue('café')).toBe(`=?base64?${Buffer.from('café').toString('base64')}?=`);
  });
});

describe('forwardedHeaders', () => {
  it("drops the protocol headers a headers function returns, whatever their case, as for the client's own", async () => {
    const options = {
      forwardHeaders: [],
      headers: () => ({
        'X-Tenant': 't1',
        'MCP-Protocol-Version': '1999-01-01',
        'Mcp-Param-Region': 'eu',
        'Last-Event-ID': '9',
        Authorization: 'Bearer up',
      }),
    } as unknown as ResolvedUpstream;
    expect(await forwardedHeaders(options, undefined)).toEqual({ 'x-tenant': 't1', authorization: 'Bearer up' });
  });
});
