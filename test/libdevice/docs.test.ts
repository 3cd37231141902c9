/** docs/libdevice.md is what scripts/libdevice/gen-docs.mjs writes from the table and the test results. */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { test } from "node:test";

test("docs/libdevice.md is current", () => {
  const script = path.resolve(__dirname, "../../../scripts/libdevice/gen-docs.mjs");
  const r = spawnSync(process.execPath, [script, "--check"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
});
