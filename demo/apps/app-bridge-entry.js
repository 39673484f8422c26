// The playground's host side of MCP Apps, as one browser module (bundled by demo/apps/bundle.ts at demo start).
export { AppBridge, PostMessageTransport, buildAllowAttribute } from '@modelcontextprotocol/ext-apps/app-bridge';
