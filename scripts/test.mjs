#!/usr/bin/env node
// Runs every compiled `*.test.js` under the packages' dist folders with Node's test runner.
// `npm test` builds first (tsc -b), then calls this. Extra arguments go to `node --test`.
import { readdirSync, statSync, existsSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

const roots = ["compiler/dist", "native-bindings/dist", "runtime/dist", "server/dist", "client/dist", "test/dist"];
const files = [];
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith(".test.js")) files.push(p);
  }
}
for (const r of roots) if (existsSync(r)) walk(r);
const filter = process.env.CUDASCRIPT_TEST_FILTER;
const selected = filter ? files.filter((f) => f.includes(filter)) : files;
if (selected.length === 0) {
  console.error("no test files found; did `tsc -b` run?");
  process.exit(1);
}
// Unit tests run on the simulator even on a machine with a GPU (the GPU tests choose their backend).
const env = { ...process.env, CUDASCRIPT_BACKEND: process.env.CUDASCRIPT_BACKEND ?? "simulator" };
const r = spawnSync(process.execPath, ["--test", "--test-concurrency=2", ...process.argv.slice(2), ...selected], { stdio: "inherit", env });
process.exit(r.status ?? 1);
