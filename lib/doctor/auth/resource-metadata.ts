// Finds the protected-resource metadata (RFC 9728) where clients look for it, in their order, and judges what they would read.

import type { Finding } from '../finding';
import type { DocumentFetcher, Fetched } from './documents';
import { AUTH_DOCS, ROOT_METADATA_FIX } from './links';
import {
  bearerMethodsFinding,
  corsFinding,
  resourceFinding,
  serversFinding,
  type NamedServer,
} from './resource-fields';
import { resourceMetadataUrls } from './urls';

/** What the metadata step found: its findings, and the authorization servers to check next. */
export interface ResourceStep {
  readonly findings: Finding[];
  /** The document clients read, when there is one. */
  readonly document?: Fetched;
  /** The authorization servers it names (https, or http on loopback), in order. */
  readonly servers: NamedServer[];
}

/** Where each place was, for the details: the challenge's URL and both RFC 9728 §3.1 forms. */
interface Places {
  readonly header?: Fetched;
  readonly pathForm: Fetched;
  readonly rootForm: Fetched;
}

const outcomeOf = (doc: Fetched): string => (doc.json !== undefined ? 'found' : (doc.problem ?? 'not found'));

function placesDetail(places: Places): string {
  const line = (label: string, doc: Fetched | undefined): string[] =>
    doc === undefined ? [] : [`${label} ${doc.url}: ${outcomeOf(doc)}`];
  return [
    ...line('challenge', places.header),
    ...line('path-inserted', places.pathForm),
    ...line('root', places.rootForm),
  ].join('; ');
}

/**
 * The document the SDK clients read: the challenge's URL alone when there is one (MCP authorization: clients MUST use
 * it); else the path-inserted form, then the root form after an answer below 500 that is not a document.
 */
function usedOf(places: Places): Fetched {
  if (places.header !== undefined) return places.header;
  const { pathForm } = places;
  const status = pathForm.reply?.status;
  const fallsBack = status === undefined || (status !== 200 && status < 500) || pathForm.elsewhere !== undefined;
  return pathForm.json === undefined && fallsBack ? places.rootForm : pathForm;
}

function foundFinding(places: Places, used: Fetched): Finding {
  const id = 'auth.prm';
  const where =
    used === places.header
      ? "the challenge's URL"
      : used === places.pathForm
        ? 'the path-inserted well-known URL'
        : 'the root well-known URL';
  if (used.json !== undefined)
    return { id, severity: 'ok', summary: `protected-resource metadata found at ${where}, ${used.url}` };
  const elsewhere = [places.pathForm, places.rootForm].find((doc) => doc !== used && doc.json !== undefined);
  const fix =
    used === places.header && elsewhere !== undefined
      ? `Clients read only the challenge's URL: make the challenge name ${elsewhere.url}, which serves it (this router: drop \`auth.resourceMetadataUrl\`), or serve it at ${used.url}.`
      : 'Serve RFC 9728 metadata (`resource`, `authorization_servers`) as JSON where the challenge points, or at the well-known URL; this router serves it at `<mount path>/.well-known/oauth-protected-resource` and names it in every 401.';
  return {
    id,
    severity: 'fail',
    summary: `no protected-resource metadata where clients look: ${used.url} ${outcomeOf(used)}`,
    detail: placesDetail(places),
    fix,
    docs: AUTH_DOCS.bearer,
  };
}

/** RFC 9728 §3.1 puts the document at the path-inserted well-known URL; the SDK clients also try the root. */
function wellKnownFinding(places: Places, used: Fetched): Finding {
  const id = 'auth.prm-well-known';
  const { pathForm, rootForm } = places;
  const missing = [...new Set([pathForm, rootForm])].filter((doc) => doc.json === undefined);
  if (missing.length === 0 || (pathForm === rootForm && pathForm.json !== undefined))
    return { id, severity: 'ok', summary: 'the metadata is also at the well-known URLs' };
  const detail = placesDetail(places);
  if (places.header !== undefined && used.json !== undefined)
    return {
      id,
      severity: 'info',
      summary: `the metadata is not at ${missing.map((doc) => doc.url).join(' nor ')}: clients that ignore the challenge's URL will not find it`,
      detail,
      fix: ROOT_METADATA_FIX,
      docs: AUTH_DOCS.bearer,
    };
  if (pathForm.json !== undefined)
    return { id, severity: 'ok', summary: `the metadata is at the path-inserted well-known URL, ${pathForm.url}` };
  return {
    id,
    severity: rootForm.json !== undefined ? 'warn' : 'fail',
    summary: `the metadata is not at the path-inserted well-known URL ${pathForm.url}, where RFC 9728 §3.1 puts it`,
    detail,
    fix: ROOT_METADATA_FIX,
    docs: AUTH_DOCS.bearer,
  };
}

function redirectFinding(used: Fetched): Finding | undefined {
  if (used.redirects.length === 0) return undefined;
  return {
    id: 'auth.prm-redirect',
    severity: 'info',
    summary: `${used.url} redirects (to ${used.redirects.join(', then ')}); the SDK clients follow redirects within an origin, some clients do not`,
    fix: 'Serve the metadata at the URL clients ask for, without a redirect.',
    docs: AUTH_DOCS.bearer,
  };
}

/** Reads the metadata at the challenge's URL and both well-known forms, as clients would, and judges what they read. */
export async function checkResourceMetadata(
  fetcher: DocumentFetcher,
  endpoint: URL,
  metadataUrl: URL | undefined,
): Promise<ResourceStep> {
  const urls = resourceMetadataUrls(endpoint);
  const [header, pathForm, rootForm] = await Promise.all([
    metadataUrl === undefined ? undefined : fetcher.get(metadataUrl.href),
    fetcher.get(urls.pathForm),
    fetcher.get(urls.rootForm),
  ]);
  const places: Places = { ...(header ? { header } : {}), pathForm, rootForm };
  const used = usedOf(places);
  const findings = [foundFinding(places, used), wellKnownFinding(places, used)];
  const redirect = redirectFinding(used);
  if (redirect) findings.push(redirect);
  if (used.json === undefined) return { findings, servers: [] };
  findings.push(corsFinding('auth.prm-cors', used, fetcher.origin, 'the protected-resource metadata'));
  const others = [pathForm, rootForm].filter(
    (doc, i, all) => doc !== used && doc.json !== undefined && all.indexOf(doc) === i,
  );
  for (const doc of [used, ...others]) {
    const finding = resourceFinding(doc, endpoint, doc === used);
    if (finding) findings.push(finding);
  }
  const { finding, servers } = serversFinding(used);
  findings.push(finding);
  const methods = bearerMethodsFinding(used);
  if (methods) findings.push(methods);
  return { findings, document: used, servers };
}
