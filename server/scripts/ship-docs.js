#!/usr/bin/env node
// `prepack`: the diagnostics' codeDescription links point at docs/diagnostics.md, which lives at the
// repository's root, outside this package. Copy it in so an installed server (editors other than VS Code
// install only this package and its dependencies) links every CS code to its section.
const fs = require("node:fs");
const path = require("node:path");

const from = path.join(__dirname, "..", "..", "docs", "diagnostics.md");
const to = path.join(__dirname, "..", "docs", "diagnostics.md");
fs.mkdirSync(path.dirname(to), { recursive: true });
fs.copyFileSync(from, to);
