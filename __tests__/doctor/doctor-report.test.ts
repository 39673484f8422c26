// The doctor's pure parts: SSE bodies read into events and keep-alives, exit codes from findings, and the JSON report's shape.

import type { Finding } from '../../lib/doctor/finding';
import { parseSse } from '../../lib/doctor/mcp';
import { formatJson } from '../../lib/doctor/report';
import { exitCodeOf } from '../../lib/doctor/run';

describe('parseSse', () => {
  it('reads events (multi-line data, event names, ids) and counts comments', () => {
    const body =
      ': keep-alive\n\nid: 1\nevent: message\ndata: {"a":\ndata: 1}\n\n:\r\n\r\nevent: other\ndata: x\n\ndata:no-space\n\n';
    expect(parseSse(body)).toEqual({
      events: [
        { event: 'message', data: '{"a":\n1}', id: '1' },
        { event: 'other', data: 'x' },
        { event: 'message', data: 'no-space' },
      ],
      comments: 2,
    });
  });
});

describe('exitCodeOf', () => {
  const finding = (id: string, severity: Finding['severity']): Finding => ({ id, severity, summary: id });
  it.each([
    [[finding('reach.ok', 'ok'), finding('stream.no-keepalive', 'warn')], 0],
    [[finding('reach.ok', 'ok'), finding('tools.duplicate', 'fail')], 1],
    [[finding('reach.refused', 'fail'), finding('reach.stopped', 'info')], 2],
    [[finding('reach.dns', 'fail')], 2],
    [[finding('tls.untrusted', 'fail')], 1],
  ] as const)('%j → %d', (findings, code) => {
    expect(exitCodeOf(findings)).toBe(code);
  });
});

it('prints --json as { url, exitCode, findings }', () => {
  const findings: Finding[] = [{ id: 'card.absent', severity: 'info', summary: 'no card' }];
  expect(JSON.parse(formatJson({ url: 'https://x/mcp', exitCode: 0, findings }))).toEqual({
    url: 'https://x/mcp',
    exitCode: 0,
    findings,
  });
});
