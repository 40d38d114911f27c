/**
 * Who an app is, on the consent page. An app registered dynamically is known by the name it
 * gave. An app named by a Client ID Metadata Document is shown with the host that serves the
 * document, beside the name read from it: anyone can publish a document calling itself a
 * well-known app, but not from that app's own host, so the host is what the person checks.
 */
import { isMetadataDocumentId } from '../auth/oauth/client-metadata.js';
import { html, type Html } from './html.js';

/** The app's identity block: its name, and for a metadata document the host that vouches for it. */
export function clientIdentity(client: { clientId: string; clientName?: string | null }): Html {
  const name = client.clientName ?? null;
  const document = isMetadataDocumentId(client.clientId) ? URL.parse(client.clientId) : null;
  if (!document) return html`<strong>${name ?? 'An app that gave no name'}</strong>`;
  return html`<strong>${name}</strong> from <strong class="client-host">${document.host}</strong>
<span class="muted">(it describes itself at <code>${client.clientId}</code>: check that ${document.host} is the app you mean)</span>`;
}
