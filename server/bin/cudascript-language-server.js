#!/usr/bin/env node
// The `cudascript-language-server` command (nvim-lspconfig, Helix, Zed: `cudascript-language-server --stdio`).
// A committed shim, so npm can link the command before the build has run; the server is in dist/.
const code = require("../dist/server.js").main(process.argv.slice(2));
if (code !== undefined) process.exitCode = code;
