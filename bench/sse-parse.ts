// The gateway's SSE reader against eventsource-parser (what the official SDK client uses): time and correctness.
//
// Run: npx tsx bench/sse-parse.ts   (SSE_READER=<module> adds another reader exporting readSseEvents, e.g. an older copy)
// Not part of `npm run bench`: a one-off measurement for issue 32 step 7, whose numbers are in the commit that added it.

import { createParser } from 'eventsource-parser';
import { readSseEvents } from '../lib/features/gateway/http-client/upstream-sse';

type Reader = (chunks: readonly Uint8Array[], limit: number) => Promise<string[]>;

const CHUNK = 16 * 1024;
const LIMIT = 4 * 1024 * 1024;
const ROUNDS = Number(process.env.SSE_ROUNDS ?? 5);

function streamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(chunks[next++]!);
      else controller.close();
    },
  });
}

/** `text` as UTF-8, cut into `size`-byte chunks (a multi-byte character may straddle two). */
function chunked(text: string, size = CHUNK): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.slice(start, start + size));
  return chunks;
}

const ours =
  (read: (body: ReadableStream<Uint8Array>, limit: number) => AsyncIterable<{ data: string }>): Reader =>
  async (chunks, limit) => {
    const found: string[] = [];
    for await (const event of read(streamOf(chunks), limit)) if (event.data !== '') found.push(event.data);
    return found;
  };

/**
 * eventsource-parser as readSseEvents would use it if adopted: a TextDecoder stream fed to the parser (as the SDK
 * client does), its buffer capped, its events yielded one by one, so both readers are timed behind the same API.
 */
async function* readWithLibrary(
  body: ReadableStream<Uint8Array>,
  limit: number,
): AsyncGenerator<{ data: string; id: string | undefined }> {
  const found: { data: string; id: string | undefined }[] = [];
  let failure: Error | undefined;
  const parser = createParser({
    onEvent: (event) => found.push({ data: event.data, id: event.id }),
    onError: (error) => {
      failure ??= error;
    },
    maxBufferSize: limit,
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
    if (failure !== undefined) throw failure;
    for (const event of found) yield event;
    found.length = 0;
  }
}

interface Workload {
  readonly name: string;
  readonly chunks: Uint8Array[];
  /** What a correct reader yields, or 'refused' when the cap must refuse the stream. */
  readonly expected: readonly string[] | 'refused';
}

const small = Array.from({ length: 20_000 }, (_, i) =>
  JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: i, progress: i } }),
);
const big = 'x'.repeat(4_000_000);
const wide = 'é'.repeat(2_500_000);
const workloads: Workload[] = [
  {
    name: '(a) 20,000 small events, 16 KB chunks',
    chunks: chunked(small.map((data) => `data: ${data}\n\n`).join('')),
    expected: small,
  },
  { name: '(b) one 4 MB line, 16 KB chunks', chunks: chunked(`data: ${big}\n\n`), expected: [big] },
  {
    name: '(c) 2.5 M "é" (5 MB of UTF-8, 2.5 M UTF-16 units) over a 4 MiB cap',
    chunks: chunked(`data: ${wide}\n\n`),
    expected: 'refused',
  },
];

async function measure(read: Reader, workload: Workload): Promise<{ ms: number; verdict: string }> {
  const times: number[] = [];
  let verdict = '';
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    let outcome: string[] | 'refused';
    try {
      outcome = await read(workload.chunks, LIMIT);
    } catch {
      outcome = 'refused';
    }
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    const correct =
      outcome === 'refused' || workload.expected === 'refused'
        ? outcome === workload.expected
        : outcome.length === workload.expected.length && outcome.every((data, i) => data === workload.expected[i]);
    verdict = correct
      ? 'correct'
      : `WRONG (${outcome === 'refused' ? 'refused' : `${outcome.length} events`}, expected ${workload.expected === 'refused' ? 'a refusal' : `${workload.expected.length} events`})`;
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)]!, verdict };
}

async function main(): Promise<void> {
  const readers: [string, Reader][] = [
    ['lib/features/gateway/http-client/upstream-sse.ts', ours(readSseEvents)],
    ['eventsource-parser', ours(readWithLibrary)],
  ];
  if (process.env.SSE_READER !== undefined) {
    const other = (await import(process.env.SSE_READER)) as { readSseEvents: typeof readSseEvents };
    readers.push([process.env.SSE_READER, ours(other.readSseEvents)]);
  }
  console.log(`| workload | reader | median of ${ROUNDS} (ms) | result |`);
  console.log('| --- | --- | ---: | --- |');
  for (const workload of workloads) {
    for (const [name, read] of readers) {
      const { ms, verdict } = await measure(read, workload);
      console.log(`| ${workload.name} | ${name} | ${ms.toFixed(1)} | ${verdict} |`);
    }
  }
}

void main();
