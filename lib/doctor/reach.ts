// The reach and tls areas: whether the endpoint answers at all, over what, with which certificate, and whether it redirects.

import type { Check, DoctorContext } from './context';
import type { Finding } from './finding';
import { alpnOf, headerOf, HttpFailure, type HttpReply, type TlsInfo } from './http';
import { excerpt, post2026 } from './mcp';
import { reachOf } from './auth/urls';

/** Findings after which nothing else can be checked: the endpoint gave no HTTP answer (exit code 2). */
export const UNREACHABLE = new Set(['reach.dns', 'reach.refused', 'reach.timeout', 'reach.network']);

/** Findings after which nothing else can be checked, though the endpoint answered (exit code 1): every later request would meet the same. */
export const STOPPED = new Set([
  'tls.not-tls',
  'tls.untrusted',
  'tls.name',
  'tls.expired',
  'reach.redirect',
  'reach.not-mcp',
]);

/** A certificate that expires sooner than this is a warning: renewals fail quietly. */
export const EXPIRY_WARN_DAYS = 14;

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME']);

function failureFinding(failure: HttpFailure, ctx: DoctorContext): Finding {
  const host = ctx.target.url.host;
  const detail = `${failure.code}: ${failure.message}`;
  if (DNS_CODES.has(failure.code))
    return {
      id: 'reach.dns',
      severity: 'fail',
      summary: `${ctx.target.url.hostname} does not resolve`,
      detail,
      fix: 'Check the host name in the URL, and that its DNS record exists where clients resolve it.',
      docs: 'doctor.md#reach',
    };
  if (failure.code === 'ECONNREFUSED')
    return {
      id: 'reach.refused',
      severity: 'fail',
      summary: `${host} refused the connection`,
      detail,
      fix: 'Nothing listens on that port: start the server, or check the port and that a firewall or load balancer forwards it.',
      docs: 'doctor.md#reach',
    };
  if (failure.code === 'ETIMEDOUT')
    return {
      id: 'reach.timeout',
      severity: 'fail',
      summary: `${host} gave no answer in time`,
      detail,
      fix: 'A firewall drops the packets, or the server hangs before answering: check the port is open from outside, or raise --timeout.',
      docs: 'doctor.md#reach',
    };
  const tls = tlsFailure(failure);
  if (tls) return tls;
  return {
    id: 'reach.network',
    severity: 'fail',
    summary: `the connection to ${host} failed`,
    detail,
    fix: 'Check the URL, the network path to it, and any proxy between.',
    docs: 'doctor.md#reach',
  };
}

/** OpenSSL's words for an answer to the TLS hello that is no TLS record: plain HTTP, or anything else. */
const NOT_TLS =
  /wrong[ _]version[ _]number|packet[ _]length[ _]too[ _]long|unknown[ _]protocol|http[ _]request|record[ _]layer[ _]failure/i;

function tlsFailure(failure: HttpFailure): Finding | undefined {
  const code = failure.code;
  const detail = `${code}: ${failure.message}`;
  if ((code === 'EPROTO' || code.startsWith('ERR_SSL')) && NOT_TLS.test(`${code} ${failure.message}`))
    return {
      id: 'tls.not-tls',
      severity: 'fail',
      summary: 'the port does not speak TLS: its answer to the TLS hello is no TLS record',
      detail,
      fix: 'Use http:// for this port, or the port where TLS is served (443, or the TLS port of the proxy in front).',
      docs: 'doctor.md#tls',
    };
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return {
      id: 'tls.name',
      severity: 'fail',
      summary: "the certificate does not name the URL's host",
      detail,
      fix: 'Serve a certificate whose subject alternative names include this host name (or use the name it has).',
      docs: 'doctor.md#tls',
    };
  if (code === 'CERT_HAS_EXPIRED')
    return {
      id: 'tls.expired',
      severity: 'fail',
      summary: 'the certificate has expired',
      detail,
      fix: 'Renew the certificate, and check the renewal job (certbot, your load balancer) runs.',
      docs: 'doctor.md#tls',
    };
  if (/CERT|SELF_SIGNED|UNABLE_TO_|^ERR_TLS|^ERR_SSL|^EPROTO$/.test(code))
    return {
      id: 'tls.untrusted',
      severity: 'fail',
      summary: 'the certificate is not trusted',
      detail,
      fix: 'Serve the full chain (leaf and intermediates) from a public CA. For a private CA, clients need it too: --ca <file> or NODE_EXTRA_CA_CERTS here.',
      docs: 'doctor.md#tls',
    };
  return undefined;
}

function tlsFindings(ctx: DoctorContext, tls: TlsInfo | undefined, now: number): Finding[] {
  if (ctx.target.url.protocol !== 'https:') {
    if (reachOf(ctx.target.url.hostname) === 'loopback')
      return [{ id: 'tls.plain-http', severity: 'info', summary: 'plain http on a loopback address' }];
    return [
      {
        id: 'tls.plain-http',
        severity: 'warn',
        summary: 'plain http on a host other machines reach',
        detail: 'Tokens travel in the Authorization header; hosted clients refuse or warn about http endpoints.',
        fix: 'Serve the endpoint over https (a TLS proxy in front of the app), and set `trust proxy`.',
        docs: 'deployment.md#behind-a-tls-proxy',
      },
    ];
  }
  const findings: Finding[] = [];
  const issued = [tls?.subject && `subject ${tls.subject}`, tls?.issuer && `issuer ${tls.issuer}`, tls?.protocol]
    .filter(Boolean)
    .join('; ');
  findings.push({
    id: 'tls.certificate',
    severity: 'ok',
    summary: 'the certificate is trusted and names the host',
    detail: issued,
  });
  const expires = tls?.validTo ? Date.parse(tls.validTo) : NaN;
  if (!Number.isNaN(expires)) {
    const days = Math.floor((expires - now) / 86_400_000);
    findings.push(
      days < EXPIRY_WARN_DAYS
        ? {
            id: 'tls.expiry',
            severity: 'warn',
            summary: `the certificate expires in ${days} days (${tls?.validTo})`,
            fix: 'Renew it now, and check the renewal job runs.',
            docs: 'doctor.md#tls',
          }
        : { id: 'tls.expiry', severity: 'ok', summary: `the certificate is valid for ${days} more days` },
    );
  }
  return findings;
}

function statusFindings(reply: HttpReply): Finding[] {
  const status = reply.status;
  if (status >= 300 && status < 400)
    return [
      {
        id: 'reach.redirect',
        severity: 'fail',
        summary: `the endpoint redirects (${status}) to ${headerOf(reply, 'location') ?? '(no Location)'}`,
        detail: 'MCP clients do not follow redirects on POST.',
        fix: 'Give clients the final URL (mind a trailing slash, http → https, or another host).',
        docs: 'doctor.md#reach',
      },
    ];
  const speaksJsonRpc = /"jsonrpc"\s*:\s*"2\.0"/.test(reply.body);
  if (status >= 500)
    return [
      {
        id: 'reach.server-error',
        severity: 'fail',
        summary: `the endpoint answered ${status}`,
        detail: excerpt(reply.body),
        fix: 'A 502/503/504 comes from a proxy that cannot reach the app (is it running, on the port the proxy names?); a 500 from the app: see its logs.',
        docs: 'doctor.md#reach',
      },
    ];
  if ((status === 404 || status === 405) && !speaksJsonRpc)
    return [
      {
        id: 'reach.not-mcp',
        severity: 'fail',
        summary: `a POST got ${status} with no JSON-RPC body: no MCP endpoint at this path`,
        detail: excerpt(reply.body),
        fix: 'Check the path (the mount point of the router, e.g. /mcp) and that the proxy forwards POST to it.',
        docs: 'doctor.md#reach',
      },
    ];
  return [];
}

/**
 * Reach and TLS: one harmless POST (`server/discover`, which no server keeps state for), what came back and over what.
 *
 * @example
 * ```ts
 * const findings = await checkReach(ctx);
 * ```
 */
export const checkReach: Check = async (ctx) => {
  let reply: HttpReply;
  try {
    reply = (await post2026(ctx, 'server/discover', {}, 1)).http;
  } catch (error) {
    if (error instanceof HttpFailure) return [failureFinding(error, ctx)];
    throw error;
  }
  const reached: Finding = {
    id: 'reach.ok',
    severity: 'ok',
    summary: `reached in ${Math.round(reply.elapsedMs)} ms: HTTP/${reply.httpVersion} ${reply.status}`,
  };
  return [
    reached,
    ...statusFindings(reply),
    ...tlsFindings(ctx, reply.tls, Date.now()),
    ...(await versionFindings(ctx)),
  ];
};

/** HTTP/2 over TLS is what most hosted clients' stacks prefer; HTTP/1.1 works for MCP too, so this is only said. */
async function versionFindings(ctx: DoctorContext): Promise<Finding[]> {
  if (ctx.target.url.protocol !== 'https:') return [];
  const alpn = await alpnOf(ctx.http, ctx.target.url).catch(() => undefined);
  return [
    {
      id: 'reach.http-version',
      severity: 'info',
      summary: alpn === 'h2' ? 'HTTP/2 offered (ALPN h2), HTTP/1.1 too' : 'HTTP/1.1 only (no ALPN h2)',
    },
  ];
}
