// The first step of sign-in: what the endpoint answers a request without a token, in both eras, and the challenge it sends.

import type { DoctorContext } from '../context';
import type { Finding } from '../finding';
import { headerOf } from '../http';
import { AUTH_DOCS, PUBLIC_URL_FIX } from './links';
import { probe, type ProbeEra, type ProbeResult } from './probes';
import { insecureReason, parseUrl, reachOf } from './urls';
import type { Challenge } from './www-authenticate';

/** What the challenge step found and what the next steps start from. */
export interface ChallengeStep {
  readonly findings: Finding[];
  /** `open`: served without a token; `protected`: go on to the metadata; `stop`: nothing more to check. */
  readonly outcome: 'open' | 'protected' | 'stop';
  /** The era whose opening request was challenged (the token is tried with it). */
  readonly era?: ProbeEra;
  /** The challenge clients read. */
  readonly challenge?: Challenge;
  /** Its `resource_metadata`, when an absolute URL. */
  readonly metadataUrl?: URL;
}

const OPENING: Readonly<Record<ProbeEra, string>> = {
  '2025': '`initialize`',
  '2026': 'a 2026-07-28 `server/discover`',
};
const ID: Readonly<Record<ProbeEra, string>> = { '2025': 'auth.challenge', '2026': 'auth.challenge-2026' };

const CHALLENGE_FIX =
  'Answer a request without a token with 401 and `WWW-Authenticate: Bearer resource_metadata="<metadata URL>", ' +
  'scope="<scopes>"` (RFC 6750 §3, RFC 9728 §5.1): MCP clients start sign-in from that header.';

/** A one-line account of an answer: its status, and where a redirect pointed. */
function statusOf(result: ProbeResult): string {
  if (result.kind === 'unreachable') return `no answer (${result.reason})`;
  const where = result.kind === 'other' && result.elsewhere !== undefined ? ` to ${result.elsewhere}` : '';
  return `${result.reply.status}${where}`;
}

/** The finding for one era's opening request sent without a token. */
function eraFinding(era: ProbeEra, result: ProbeResult): Finding {
  const id = ID[era];
  const sent = `${OPENING[era]} without a token`;
  if (result.kind === 'challenged') {
    const header = headerOf(result.reply, 'www-authenticate') ?? '';
    if (result.reply.status === 403)
      return {
        id,
        severity: 'warn',
        summary: `${sent} got 403, not 401, with a challenge`,
        detail: header,
        fix: CHALLENGE_FIX,
        docs: AUTH_DOCS.bearer,
      };
    if (result.all[0] !== result.challenge)
      return {
        id,
        severity: 'warn',
        summary: `${sent} got 401, but its \`${result.challenge.scheme}\` challenge comes after a \`${result.all[0]?.scheme}\` one`,
        detail: `WWW-Authenticate: ${header}; the SDK v1 client reads only the first challenge`,
        fix: 'Send the Bearer (or DPoP) challenge first in `WWW-Authenticate`.',
        docs: AUTH_DOCS.bearer,
      };
    return {
      id,
      severity: 'ok',
      summary: `${sent} got 401 with a \`${result.challenge.scheme}\` challenge`,
      detail: `WWW-Authenticate: ${header}`,
    };
  }
  if (result.kind === 'bare') {
    const what =
      result.header === undefined
        ? 'no `WWW-Authenticate` header'
        : `a challenge MCP clients cannot answer (\`${result.header}\`)`;
    return {
      id,
      severity: 'fail',
      summary: `${sent} got ${result.reply.status} with ${what}`,
      fix: CHALLENGE_FIX,
      docs: AUTH_DOCS.bearer,
    };
  }
  if (result.kind === 'served') return { id, severity: 'info', summary: `${sent} was served (${result.reply.status})` };
  return {
    id,
    severity: 'info',
    summary: `${sent} got ${statusOf(result)}, neither a challenge nor an answer; see the other areas`,
  };
}

/** What the challenge's `resource_metadata` names, judged as a client follows it. */
function metadataUrlFinding(endpoint: URL, challenge: Challenge): { finding: Finding; url?: URL } {
  const named = challenge.params.resource_metadata;
  const id = 'auth.challenge-url';
  if (named === undefined)
    return {
      finding: {
        id,
        severity: 'warn',
        summary: 'the challenge names no `resource_metadata`: clients must guess the well-known URLs',
        fix: 'Add `resource_metadata="<absolute URL of the protected-resource metadata>"` to the challenge (RFC 9728 §5.1; MCP authorization: clients use it first).',
        docs: AUTH_DOCS.bearer,
      },
    };
  const url = parseUrl(named);
  if (url === undefined)
    return {
      finding: {
        id,
        severity: 'fail',
        summary: `the challenge's \`resource_metadata\` is not an absolute URL: ${named}`,
        fix: 'Name the metadata by an absolute https URL (RFC 9728 §5.1).',
        docs: AUTH_DOCS.bearer,
      },
    };
  const insecure = insecureReason(url);
  const internal = reachOf(url.hostname) !== 'public' && reachOf(endpoint.hostname) === 'public';
  if (insecure !== undefined || internal)
    return {
      url,
      finding: {
        id,
        severity: 'fail',
        summary: `the challenge names ${url.href}: ${insecure ?? 'a host clients cannot reach'}, while the client used ${endpoint.origin}`,
        fix: PUBLIC_URL_FIX,
        docs: AUTH_DOCS.deployment,
      },
    };
  if (url.origin !== endpoint.origin)
    return {
      url,
      finding: {
        id,
        severity: 'warn',
        summary: `the challenge names metadata on another origin: ${url.href}`,
        detail: `the client used ${endpoint.origin}`,
        fix: PUBLIC_URL_FIX,
        docs: AUTH_DOCS.deployment,
      },
    };
  return { url, finding: { id, severity: 'ok', summary: `the challenge names the metadata at ${url.href}` } };
}

function scopeFinding(challenge: Challenge): Finding {
  const scope = challenge.params.scope;
  if (scope !== undefined && scope.trim() !== '')
    return { id: 'auth.challenge-scope', severity: 'ok', summary: `the challenge asks for scope \`${scope}\`` };
  return {
    id: 'auth.challenge-scope',
    severity: 'info',
    summary: "the challenge lists no `scope`: clients ask for the metadata's `scopes_supported`, or for none",
    fix: 'Name the scopes a client needs in the challenge (MCP authorization › Scope Selection Strategy: SHOULD); with this router, `auth.requiredScopes` or `auth.resourceMetadata.scopesSupported`.',
    docs: AUTH_DOCS.bearer,
  };
}

/** Sends both eras' opening requests without a token and reads what a client would start sign-in from. */
export async function checkChallenge(ctx: DoctorContext): Promise<ChallengeStep> {
  const endpoint = ctx.target.url;
  const [legacy, modern] = await Promise.all([probe(ctx.http, endpoint, '2025'), probe(ctx.http, endpoint, '2026')]);
  const findings = [eraFinding('2025', legacy), eraFinding('2026', modern)];
  // A client starts sign-in from a challenge; a 401 without one still sends the SDK clients to the well-known URLs.
  const pick = (kind: ProbeResult['kind']): ProbeEra | undefined =>
    legacy.kind === kind ? '2025' : modern.kind === kind ? '2026' : undefined;
  const era = pick('challenged') ?? pick('bare');
  if (era === undefined) {
    if (legacy.kind !== 'served' && modern.kind !== 'served') return { findings, outcome: 'stop' };
    const open: Finding = {
      id: 'auth.open',
      severity: 'info',
      summary: 'no authorization: the endpoint serves requests without a token',
      detail: `initialize: ${statusOf(legacy)}; server/discover: ${statusOf(modern)}`,
      fix: 'If it should be private, require a token (this router: the `auth` option).',
      docs: AUTH_DOCS.bearer,
    };
    return { findings: [open], outcome: 'open' };
  }
  const primary = era === '2025' ? legacy : modern;
  if (primary.kind !== 'challenged') return { findings, outcome: 'protected', era };
  const { finding, url } = metadataUrlFinding(endpoint, primary.challenge);
  findings.push(finding, scopeFinding(primary.challenge));
  return { findings, outcome: 'protected', era, challenge: primary.challenge, ...(url ? { metadataUrl: url } : {}) };
}
