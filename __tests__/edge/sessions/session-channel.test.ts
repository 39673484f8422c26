// SessionChannel owns a session's streams in this process: POST streams, the standalone GET stream, and connections
// following a stream of another instance, all under one sessions.maxStreams (issue 32: streams owned once).

import { MemoryMessageBus } from '../../../lib/edge/store/memory-message-bus';
import { SessionChannel, type ChannelOwner, type LiveSession } from '../../../lib/edge/sessions/session-channel';
import { OutboundStream } from '../../../lib/edge/streams/outbound-stream';
import type { SseConnection } from '../../../lib/edge/http/sse';

const logger = { error: jest.fn(), warn: jest.fn() };

function channelWith(maxStreams: number): { channel: SessionChannel; live: LiveSession } {
  const live: LiveSession = {
    id: 's1',
    principal: undefined,
    createdAt: 0,
    protocolVersion: '2025-11-25',
    createdHere: true,
    standalone: undefined,
    streams: new Map(),
    inflight: new Map(),
    subscriptions: [],
    nextRequestId: 0,
    pendingRequests: 0,
    followers: new Map(),
  };
  const owner: ChannelOwner = {
    settings: { events: undefined, bus: new MemoryMessageBus(), logger, maxStreams, maxPendingRequests: 10 },
    isOpen: () => true,
    touch: () => undefined,
    newStream: () => new OutboundStream(undefined, logger),
  };
  return { channel: new SessionChannel(owner, live, '2025-11-25'), live };
}

/** An SSE connection as a stream holds it: open until ended. */
function connection(): SseConnection & { open: boolean } {
  const fake: { open: boolean; whenClosed: jest.Mock; event: jest.Mock; end: jest.Mock } = {
    open: true,
    whenClosed: jest.fn(),
    event: jest.fn(),
    end: jest.fn(() => {
      fake.open = false;
    }),
  };
  return fake as unknown as SseConnection & { open: boolean };
}

/** A connection as a follower is held: only its end is called. */
const follower = (): { end: jest.Mock } => ({ end: jest.fn() });

beforeEach(() => jest.clearAllMocks());

it('counts followers and POST streams against one maxStreams', () => {
  const { channel } = channelWith(2);
  channel.openStream([1]);
  const release = channel.follow('remote-a', follower());
  expect(release).toBeInstanceOf(Function);
  // Full: neither another follower nor another POST stream.
  expect(channel.follow('remote-b', follower())).toBeUndefined();
  expect(channel.admitsStream(true)).toBe(false);
  expect(logger.warn).toHaveBeenCalledWith(
    'mcpRouter: session s1 has 2 open streams (sessions.maxStreams); replying with JSON',
  );
  release?.();
  expect(channel.admitsStream(false)).toBe(true);
  expect(channel.follow('remote-b', follower())).toBeInstanceOf(Function);
});

it('lets a new connection replace the follower of the same stream even when full, ending the old one', () => {
  const { channel, live } = channelWith(1);
  const first = follower();
  const releaseFirst = channel.follow('remote-a', first);
  const second = follower();
  const releaseSecond = channel.follow('remote-a', second);
  expect(first.end).toHaveBeenCalledTimes(1);
  expect(releaseSecond).toBeInstanceOf(Function);
  // The old connection's release, run when it ends, leaves the new one in place.
  releaseFirst?.();
  expect(live.followers.get('remote-a')).toBe(second);
  releaseSecond?.();
  expect(live.followers.size).toBe(0);
});

it('finds a stream to resume among its POST streams and its standalone stream, and no other', () => {
  const { channel } = channelWith(5);
  const post = channel.openStream([1]);
  const standalone = channel.attachStandalone(connection());
  expect(channel.localStream(post.id)).toBe(post);
  expect(channel.localStream(standalone.id)).toBe(standalone);
  expect(channel.localStream('elsewhere')).toBeUndefined();
  channel.closeStream(post);
  expect(channel.localStream(post.id)).toBeUndefined();
});

it('keeps one standalone stream across connections, connected while its connection is open', () => {
  const { channel } = channelWith(5);
  expect(channel.standaloneConnected).toBe(false);
  const first = connection();
  const stream = channel.attachStandalone(first);
  expect(channel.standaloneConnected).toBe(true);
  first.open = false; // the client went away
  expect(channel.standaloneConnected).toBe(false);
  expect(channel.attachStandalone(connection())).toBe(stream);
  expect(channel.standaloneConnected).toBe(true);
});
