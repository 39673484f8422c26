// The tools area: every listed tool's name, description and schemas (JSON Schema 2020-12, sizes), duplicates, and the calls `--call` names.

import { TOOL_NAME } from '../core/registry/tools';
import { createSchemaValidator } from '../core/schema/validator';
import type { Check, DoctorContext } from './context';
import type { Finding } from './finding';
import {
  converse,
  counted,
  errorOf,
  excerpt,
  isRecord,
  listAllTools,
  resultOf,
  type Conversation,
  type RpcReply,
} from './mcp';

/** A schema larger than this costs every model that reads the list its context: a warning. */
export const SCHEMA_WARN_BYTES = 16 * 1024;

/** A whole tools list larger than this is a warning: clients load it on every connection. */
export const LIST_WARN_BYTES = 256 * 1024;

/** A call shorter than this says nothing of buffering: its events may all come at once anyway. */
export const CALL_SPREAD_MIN_MS = 1_000;

/** At most this many tools are named in one finding. */
const NAMED = 5;

const DOCS = 'doctor.md#tools';

const named = (names: string[]): string =>
  names.slice(0, NAMED).join(', ') + (names.length > NAMED ? ` and ${names.length - NAMED} more` : '');

/** The problems of one tool's schema: not an object schema, not valid JSON Schema 2020-12, too large. */
function schemaProblems(tool: Record<string, unknown>, key: 'inputSchema' | 'outputSchema'): string[] {
  const schema = tool[key];
  const label = `${String(tool.name)} ${key}`;
  if (schema === undefined) return key === 'inputSchema' ? [`${label} is missing`] : [];
  if (!isRecord(schema)) return [`${label} is not an object`];
  const problems: string[] = [];
  // MCP tools › Tool: inputSchema and outputSchema are JSON Schema objects whose root type is "object".
  if (schema.type !== 'object') problems.push(`${label} has type ${JSON.stringify(schema.type)}, not "object"`);
  try {
    createSchemaValidator().compile(schema, label);
  } catch (error) {
    problems.push((error as Error).message.replace(/^mcpRouter: /, ''));
  }
  return problems;
}

function hygieneFindings(tools: Record<string, unknown>[], bytes: number): Finding[] {
  const names = tools.map((t) => (typeof t.name === 'string' ? t.name : ''));
  const duplicates = [...new Set(names.filter((n, i) => names.indexOf(n) !== i))];
  const badNames = names.filter((n) => !TOOL_NAME.test(n));
  const undescribed = tools.filter((t) => typeof t.description !== 'string' || t.description.trim() === '');
  const schemaErrors = tools.flatMap((t) => [
    ...schemaProblems(t, 'inputSchema'),
    ...schemaProblems(t, 'outputSchema'),
  ]);
  const large = tools.flatMap((t) =>
    (['inputSchema', 'outputSchema'] as const)
      .filter((key) => t[key] !== undefined && Buffer.byteLength(JSON.stringify(t[key])) > SCHEMA_WARN_BYTES)
      .map((key) => `${String(t.name)} ${key}`),
  );
  const findings: Finding[] = [];
  if (duplicates.length)
    findings.push({
      id: 'tools.duplicate',
      severity: 'fail',
      summary: `tool names listed twice: ${named(duplicates)}`,
      fix: 'Tool names are unique in a server (MCP tools): a client calls by name and keeps one of them.',
      docs: DOCS,
    });
  if (badNames.length)
    findings.push({
      id: 'tools.name',
      severity: 'warn',
      summary: `names outside the spec's rule: ${named(badNames.map((n) => JSON.stringify(n)))}`,
      fix: 'Use 1–128 characters of A-Z a-z 0-9 _ . - (MCP tools › Tool Names); clients may refuse others.',
      docs: DOCS,
    });
  if (schemaErrors.length)
    findings.push({
      id: 'tools.schema',
      severity: 'fail',
      summary: `${counted(schemaErrors.length, 'schema problem')}: ${excerpt(schemaErrors[0] as string, 160)}`,
      detail: schemaErrors.slice(0, NAMED * 2).join('\n'),
      fix: 'Give each tool an inputSchema (and outputSchema, if any) that is a valid JSON Schema 2020-12 object schema; clients validate with it.',
      docs: DOCS,
    });
  if (large.length)
    findings.push({
      id: 'tools.schema-size',
      severity: 'warn',
      summary: `schemas over ${SCHEMA_WARN_BYTES / 1024} KB: ${named(large)}`,
      fix: 'Trim descriptions and enumerations, or split the tool: every schema goes into the model context.',
      docs: DOCS,
    });
  if (bytes > LIST_WARN_BYTES)
    findings.push({
      id: 'tools.list-size',
      severity: 'warn',
      summary: `the tools list is ${Math.round(bytes / 1024)} KB (over ${LIST_WARN_BYTES / 1024} KB)`,
      fix: 'Fewer tools, or shorter schemas and descriptions; clients read the whole list on every connection.',
      docs: DOCS,
    });
  if (undescribed.length)
    findings.push({
      id: 'tools.description',
      severity: 'warn',
      summary: `tools without a description: ${named(undescribed.map((t) => String(t.name)))}`,
      fix: 'Describe each tool: a model chooses tools by their descriptions.',
      docs: DOCS,
    });
  if (findings.length === 0)
    findings.push({
      id: 'tools.hygiene',
      severity: 'ok',
      summary: `${counted(tools.length, 'tool')}: names, schemas and descriptions fine`,
    });
  return findings;
}

/** A called tool's SSE reply: whether its events came as they were sent, or all at the end (a proxy's buffering). */
export function spreadFinding(name: string, reply: RpcReply): Finding[] {
  const { elapsedMs, firstByteMs } = reply.http;
  if (
    reply.format !== 'sse' ||
    reply.messages.length < 2 ||
    firstByteMs === undefined ||
    elapsedMs < CALL_SPREAD_MIN_MS
  )
    return [];
  if (firstByteMs >= elapsedMs * 0.9)
    return [
      {
        id: 'stream.call-buffered',
        severity: 'warn',
        summary: `${name}'s ${counted(reply.messages.length, 'event')} came all at once, at the end of ${Math.round(elapsedMs)} ms`,
        detail: `first byte after ${Math.round(firstByteMs)} ms`,
        fix: 'A proxy buffers SSE replies: progress reaches the client only when the call ends. Turn buffering off for the MCP path (nginx: `proxy_buffering off;`).',
        docs: 'deployment.md#behind-a-tls-proxy',
      },
    ];
  return [
    {
      id: 'stream.call-spread',
      severity: 'ok',
      summary: `${name}'s ${counted(reply.messages.length, 'event')} arrived over the call (first after ${Math.round(firstByteMs)} of ${Math.round(elapsedMs)} ms)`,
    },
  ];
}

/** Calls a listed tool once: what came back, as a finding, and (when it streamed) how its events arrived. */
async function callFindings(ctx: DoctorContext, conversation: Conversation, name: string): Promise<Finding[]> {
  const args = ctx.target.args?.[name] ?? {};
  // A progress token lets a tool that reports progress stream it (MCP utilities › progress): evidence of buffering.
  const reply = await conversation.request('tools/call', {
    name,
    arguments: args,
    _meta: { progressToken: `doctor-${name}` },
  });
  return [callFinding(name, reply), ...spreadFinding(name, reply)];
}

function callFinding(name: string, reply: RpcReply): Finding {
  const result = resultOf(reply);
  if (result && result.isError === true)
    return {
      id: 'tools.call',
      severity: 'warn',
      summary: `${name} answered with isError`,
      detail: excerpt(JSON.stringify(result.content ?? '')),
      fix: 'Pass its arguments with --args if it needs some.',
      docs: DOCS,
    };
  if (result)
    return {
      id: 'tools.call',
      severity: 'ok',
      summary: `${name} answered (${reply.format} reply, ${Math.round(reply.http.elapsedMs)} ms)`,
    };
  const error = errorOf(reply);
  return {
    id: 'tools.call',
    severity: 'fail',
    summary: `${name} failed: HTTP ${reply.http.status}${error ? `, ${String(error.code)} ${String(error.message)}` : ''}`,
    detail: excerpt(reply.http.body),
    docs: DOCS,
  };
}

/**
 * The tools area: lists every tool (in a 2025 session, or as 2026 requests when the server has no 2025 era),
 * checks the list, then calls the tools `--call` names, each once, and no other.
 *
 * @example
 * ```ts
 * const findings = await checkTools(ctx);
 * ```
 */
export const checkTools: Check = async (ctx) => {
  const conversation = await converse(ctx);
  if (!('era' in conversation))
    return [
      {
        id: 'tools.skipped',
        severity: 'info',
        summary: conversation.needsAuth
          ? 'not checked: the server needs a token (--token)'
          : `not checked: ${conversation.why}`,
      },
    ];
  try {
    const { tools, bytes, error, code } = await listAllTools(conversation);
    // -32601: the server has no tools (MCP: a method of a capability not declared is not found).
    const findings: Finding[] =
      code === -32601
        ? [{ id: 'tools.none', severity: 'info', summary: 'the server lists no tools (tools/list: method not found)' }]
        : error
          ? [{ id: 'tools.list', severity: 'fail', summary: `tools/list failed: ${error}`, docs: DOCS }]
          : hygieneFindings(tools, bytes);
    const names = new Set(tools.map((t) => t.name));
    for (const name of ctx.target.calls)
      findings.push(
        ...(names.has(name)
          ? await callFindings(ctx, conversation, name)
          : [
              {
                id: 'tools.call',
                severity: 'fail',
                summary: `--call ${name}: no such tool in the list`,
                docs: DOCS,
              } satisfies Finding,
            ]),
      );
    return findings;
  } finally {
    await conversation.close();
  }
};
