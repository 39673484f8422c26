// express-mcp-router/decorators: @tool, @resource, @prompt for controller classes, read by mcp.register(). (The same name as lib/index.ts: each is the entry point of its export path.)

export {
  prompt,
  resource,
  tool,
  type PromptDecoratorMeta,
  type ResourceDecoratorMeta,
  type ToolDecoratorMeta,
} from './features/decorators/decorators';
