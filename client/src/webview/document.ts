/**
 * The results panel's HTML (no vscode import: a browser test loads the same document). The script and
 * stylesheet are the bundles of main.ts and panel.css; the Content-Security-Policy allows only them.
 */
export function resultsDocument(o: { readonly cspSource: string; readonly script: string; readonly style: string; readonly nonce: string }): string {
  const { cspSource, script, style, nonce } = o;
  const csp = [
    "default-src 'none'",
    `img-src ${cspSource} data: blob:`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${nonce}" href="${style}">
<title>CudaScript results</title>
</head>
<body>
<header>
  <h1 id="title"></h1>
  <div id="meta" class="muted"></div>
  <div id="status" class="status"></div>
</header>
<section id="profile-section" hidden><h2>Profile</h2><div id="profile"></div></section>
<section><h2>Launches</h2><div id="launches"></div></section>
<section id="findings-section" hidden><h2>Sanitizer findings</h2><div id="findings"></div></section>
<section><h2>Arrays</h2><div id="arrays"></div></section>
<section id="output-section" hidden><h2>Output</h2><pre id="output"></pre></section>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
