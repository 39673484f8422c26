// The clientInfo the gateway tests' upstream clients send: apart from upstreams.ts (which builds Express apps), so
// stdio tests that need only this run in the `core` jest project.

/** The clientInfo every test upstream client announces. */
export const CLIENT_INFO = { name: 'gateway-test', version: '1.0.0' };
