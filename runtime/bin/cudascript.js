#!/usr/bin/env node
// The `cudascript` command. A committed shim (the CLI itself is compiled to dist/ by the build), so
// that npm can link the command at install time, before the build has run.
require("../dist/cli/main.js");
