// A paid tool's facilitator calls are CLIENT spans `x402 {path}`, their trace context sent as W3C headers.

import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { startOtel, type TestOtel } from '../../helpers/otel';
import { x402Facilitator, type PaymentPayload, type PaymentRequirements } from '../../../lib/x402';

let otel: TestOtel;
let server: Server;
const traceparents: (string | undefined)[] = [];
beforeEach(async () => {
  otel = startOtel();
  const app = express();
  app.post('/verify', (req, res) => {
    traceparents.push(req.get('traceparent'));
    res.json({ isValid: true, payer: '0xabc' });
  });
  app.post('/settle', (_req, res) => void res.status(502).send('bad gateway'));
  server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
});
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  await otel?.stop();
});

const payload = { x402Version: 2 } as PaymentPayload;
const requirements = {} as PaymentRequirements;

it("verify: a CLIENT span under the caller's span; the facilitator hears its traceparent", async () => {
  const { port } = server.address() as AddressInfo;
  const facilitator = x402Facilitator({ url: `http://127.0.0.1:${port}/` });
  const parent = trace.getTracer('test').startSpan('tools/call paid');
  await context.with(trace.setSpan(context.active(), parent), () => facilitator.verify(payload, requirements));
  parent.end();
  const span = otel.span('x402 verify');
  expect(span.kind).toBe(SpanKind.CLIENT);
  expect(span.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
  expect(span.attributes).toEqual({
    'http.request.method': 'POST',
    'server.address': '127.0.0.1',
    'server.port': port,
    'http.response.status_code': 200,
  });
  expect(traceparents).toEqual([`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`]);
});

it('a facilitator failure: error.type FacilitatorError, status ERROR', async () => {
  const { port } = server.address() as AddressInfo;
  const facilitator = x402Facilitator({ url: `http://127.0.0.1:${port}/` });
  await expect(facilitator.settle(payload, requirements)).rejects.toThrow('answered HTTP 502');
  const span = otel.span('x402 settle');
  expect(span.attributes).toMatchObject({ 'error.type': 'FacilitatorError', 'http.response.status_code': 502 });
  expect(span.status.code).toBe(SpanStatusCode.ERROR);
});
