// parseHostHeader and requestHost: one grammar (RFC 9110 §7.2 over RFC 3986 §3.2.2, reg-name kept strict).

import type { IncomingMessage } from 'node:http';
import { parseHostHeader, requestHost } from '../../../lib/edge/http/host-header';
import { MALFORMED_HOSTS, WELL_FORMED_HOSTS } from '../../helpers/host-spellings';

const requestWith = (host: string | undefined): IncomingMessage =>
  ({ headers: host === undefined ? {} : { host }, rawHeaders: host === undefined ? [] : ['Host', host] }) as never;

describe('parseHostHeader', () => {
  it.each(MALFORMED_HOSTS.map((host) => [JSON.stringify(host), host]))('refuses %s', (_name, host) => {
    expect(parseHostHeader(host)).toBeUndefined();
    expect(requestHost(requestWith(host))).toBeUndefined();
  });

  it.each(WELL_FORMED_HOSTS)('takes %s', (host) => {
    expect(parseHostHeader(host)).toBeDefined();
    expect(requestHost(requestWith(host))).toBe(host);
  });

  it.each([
    ['localhost:3000', 'localhost', 3000],
    ['[::1]:3000', '[::1]', 3000],
    ['[::1]', '[::1]', undefined],
    ['127.0.0.1', '127.0.0.1', undefined],
    ['example.com:65535', 'example.com', 65535],
    ['example.com:00080', 'example.com', 80],
    ['[2001:db8::1]:0', '[2001:db8::1]', 0],
  ])('%s → host %s, port %s', (value, hostname, port) => {
    expect(parseHostHeader(value)).toEqual({ hostname, port });
  });

  it('leaves a request without Host to the caller', () => {
    expect(requestHost(requestWith(undefined))).toBeUndefined();
  });
});
