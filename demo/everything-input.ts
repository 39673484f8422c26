// The conformance fixture's input_required tools and prompt (MCP 2026-07-28 MRTR): write-once handlers that ask with
// ctx.elicit / sample / listRoots, with the keys the `input-required-result-*` scenarios look for. Served in both eras.

import type { McpRouter, RequestContext } from '../lib';

/** An elicitation's form: one required property of the given type. */
function form(
  message: string,
  property: string,
  type: 'string' | 'boolean',
): { message: string; requestedSchema: Record<string, unknown> } {
  return { message, requestedSchema: { type: 'object', properties: { [property]: { type } }, required: [property] } };
}

/** What the user entered for `property`, as text. */
function answered(result: Record<string, unknown>, property: string): string {
  const content = result.content as Record<string, unknown> | undefined;
  return result.action === 'accept' ? String(content?.[property]) : `(${String(result.action)})`;
}

/** The text of a sampling result. */
function sampled(result: Record<string, unknown>): string {
  const content = result.content as { text?: unknown } | undefined;
  return typeof content?.text === 'string' ? content.text : JSON.stringify(result.content);
}

/** The roots of a roots/list result, as text. */
function rootsOf(result: Record<string, unknown>): string {
  const roots = Array.isArray(result.roots) ? (result.roots as { uri?: unknown }[]) : [];
  return roots.map((root) => String(root.uri)).join(', ') || '(none)';
}

const askName = (ctx: RequestContext): Promise<Record<string, unknown>> =>
  ctx.elicit(form('What is your name?', 'name', 'string'), { key: 'user_name' });
const askCapital = (ctx: RequestContext): Promise<Record<string, unknown>> =>
  ctx.sample(
    { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 },
    { key: 'capital_question' },
  );
const askRoots = (ctx: RequestContext): Promise<Record<string, unknown>> => ctx.listRoots({ key: 'client_roots' });

/** Adds the `test_input_required_result_*` tools and the `test_input_required_result_prompt` prompt. */
export function addInputRequiredFixtures(mcp: McpRouter): void {
  const tool = (
    name: string,
    description: string,
    handler: (args: Record<string, never>, ctx: RequestContext) => Promise<string>,
  ): void => {
    mcp.tool({ name: `test_input_required_result_${name}`, description, handler });
  };

  tool(
    'elicitation',
    'Asks the user for a name (key user_name), then greets them',
    async (_args, ctx) => `Hello, ${answered(await askName(ctx), 'name')}!`,
  );
  tool(
    'sampling',
    'Asks the model for the capital of France (key capital_question)',
    async (_args, ctx) => `LLM response: ${sampled(await askCapital(ctx))}`,
  );
  tool(
    'list_roots',
    "Asks for the client's roots (key client_roots)",
    async (_args, ctx) => `Client roots: ${rootsOf(await askRoots(ctx))}`,
  );
  tool(
    'request_state',
    'Asks for a confirmation (key confirm); the retry carries the sealed requestState',
    async (_args, ctx) => {
      const confirmed = await ctx.elicit(form('Please confirm', 'ok', 'boolean'), { key: 'confirm' });
      return `state-ok: confirmed=${answered(confirmed, 'ok')}`;
    },
  );
  tool(
    'multiple_inputs',
    'Asks the user, the model and the roots at once (user_name, greeting, client_roots)',
    async (_args, ctx) => {
      const greetingAsk = ctx.sample(
        { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 },
        { key: 'greeting' },
      );
      const [name, greeting, roots] = await Promise.all([askName(ctx), greetingAsk, askRoots(ctx)]);
      return `${sampled(greeting)} ${answered(name, 'name')} (roots: ${rootsOf(roots)})`;
    },
  );
  tool('multi_round', 'Asks for a name (step1), then for a colour (step2)', async (_args, ctx) => {
    const name = answered(
      await ctx.elicit(form('Step 1: What is your name?', 'name', 'string'), { key: 'step1' }),
      'name',
    );
    const color = answered(
      await ctx.elicit(form('Step 2: What is your favorite color?', 'color', 'string'), { key: 'step2' }),
      'color',
    );
    return `${name} likes ${color}`;
  });
  tool(
    'tampered_state',
    'Asks for a confirmation (key confirm); a changed requestState is refused',
    async (_args, ctx) => {
      const confirmed = await ctx.elicit(form('Please confirm', 'ok', 'boolean'), { key: 'confirm' });
      return `confirmed=${answered(confirmed, 'ok')}`;
    },
  );
  tool('capabilities', 'Asks the model and the user, each only if the client declared it', async (_args, ctx) => {
    // An ask of an undeclared capability is refused at once (never sent); the others go out together.
    const skipped = (): undefined => undefined;
    const [capital, name] = await Promise.all([askCapital(ctx).catch(skipped), askName(ctx).catch(skipped)]);
    return `sampling: ${capital ? sampled(capital) : 'not declared'}; elicitation: ${name ? answered(name, 'name') : 'not declared'}`;
  });

  mcp.prompt({
    name: 'test_input_required_result_prompt',
    description: 'Asks the user for context (key user_context), then builds the prompt with it',
    get: async (_args, ctx) => {
      const context = await ctx.elicit(form('What context should the prompt use?', 'context', 'string'), {
        key: 'user_context',
      });
      return [{ role: 'user', content: `Use this context: ${answered(context, 'context')}` }];
    },
  });
}
