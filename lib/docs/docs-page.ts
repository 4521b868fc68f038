/** The start-up script, served as a file so the page needs no inline script. */
export const INIT_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('reference');
  // https://swagger.io/docs/open-source-tools/swagger-ui/usage/configuration/
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-document-url'),
    dom_id: '#reference',
    deepLinking: false,
    // No "valid" badge: it would send the document to an outside validator.
    validatorUrl: null,
    tryItOutEnabled: true,
    persistAuthorization: false,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 1,
    docExpansion: 'list',
  });
})();
`;

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] as string);
}

/**
 * The page's HTML, at `path` or `below` it (`/docs/`). Every URL in it is relative, so it works
 * behind a proxy that adds or strips a prefix.
 */
export function docsPage(path: string, documentUrl: string, title: string, below: boolean): string {
  const slash = path.lastIndexOf('/');
  const files = escapeHtml(below ? './' : `./${path.slice(slash + 1)}/`);
  const document = /^https?:\/\//i.test(documentUrl)
    ? documentUrl
    : relativeTo(below ? `${path}/` : path.slice(0, slash + 1), documentUrl);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${files}swagger-ui.css">
</head>
<body>
<div id="reference" data-document-url="${escapeHtml(document)}"></div>
<script src="${files}swagger-ui-bundle.js"></script>
<script src="${files}init.js"></script>
</body>
</html>
`;
}

/** A path as a reference relative to the directory `from` (which ends with `/`). */
function relativeTo(from: string, target: string): string {
  const up = from.split('/').slice(1, -1);
  const down = target.split('/').slice(1);
  let common = 0;
  while (common < up.length && common < down.length - 1 && up[common] === down[common]) common++;
  const ups = up.length - common;
  return (ups === 0 ? './' : '../'.repeat(ups)) + down.slice(common).join('/');
}

/**
 * The page's Content-Security-Policy: its own origin only (and the document's and API's), so it
 * never loads from a CDN or calls a server it was not pointed at. Swagger UI sets inline styles.
 */
export function contentSecurityPolicy(documentUrl: string, apiOrigin?: string): string {
  const origins = new Set<string>();
  if (/^https?:\/\//i.test(documentUrl)) origins.add(new URL(documentUrl).origin);
  if (apiOrigin !== undefined) origins.add(apiOrigin);
  const elsewhere = [...origins].map((origin) => ` ${origin}`).join('');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self'${elsewhere}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
}
