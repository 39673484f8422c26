// Test tables: Host header values that are not `host[:port]`, and values that are (the parser's unit test, the routes' table).

/** Host values that are not `host[:port]` (RFC 9110 §7.2, RFC 3986 §3.2.2, reg-name kept to letters, digits, `-._`). */
export const MALFORMED_HOSTS: readonly string[] = [
  // userinfo, or an '@' anywhere: the part after it would become the host of every URL built from the request
  '127.0.0.1:45333@evil.example',
  'mcp.example:443@evil',
  'user@example.com',
  'user:pass@example.com',
  '@example.com',
  'example.com@',
  'exa@mple.com',
  // path, query, fragment, backslash
  'example.com/',
  'example.com/evil',
  'example.com:80/evil',
  'example.com?x=1',
  'example.com#frag',
  'example.com\\evil',
  // whitespace inside the value (Node strips it around the value)
  'example .com',
  'example.com :80',
  'example.com:80 evil',
  'example.com\tevil',
  // ports
  'example.com:',
  'example.com:65536',
  'example.com:99999',
  'example.com:123456',
  'example.com:8o',
  'example.com:-1',
  'example.com:+80',
  'example.com:80:80',
  'example.com:0x50',
  // IPv6 without brackets, half-bracketed, with a zone, IPvFuture, a name in brackets
  '::1',
  '::1:3000',
  'fe80::1',
  '[::1',
  '::1]',
  '[::1]x',
  '[::1]:',
  '[::1]:70000',
  '[fe80::1%25eth0]',
  '[fe80::1%eth0]:3000',
  '[v1.abc]',
  '[example.com]',
  '[1.2.3.4]',
  '[]',
  // percent-encoding, sub-delims, other characters
  'exam%70le.com',
  'example.com%2f',
  'example.com;evil',
  'example.com,evil.example',
  'example.com!',
  "example.com'",
  'example.com"',
  'example.com<script>',
  'exa~mple.com',
  'exämple.com',
  // empty
  '',
  ':80',
];

/** Host values that pass: the origin of every URL built from the request is `http://<value>`. */
export const WELL_FORMED_HOSTS: readonly string[] = [
  'localhost:3000',
  '[::1]:3000',
  '[::1]',
  '127.0.0.1',
  '127.0.0.1:65535',
  'example.com',
  'Example.COM:443',
  'my_service:8080',
  'mcp.example.',
  '[::ffff:127.0.0.1]:80',
  '[2001:db8::1]:0',
];
