/**
 * The seeded-bug corpus: each bug is reported with the right kind and the TypeScript line marked
 * `// @bug <kind>`, as a CudaScriptError the host program can catch. Out-of-bounds accesses are
 * found with the sanitizer off too; races, divergence, undefined values need it. An undefined value
 * (read from shared memory nobody wrote) is reported where it is used — a global store, a branch, an
 * index — with `uninitializedShared: "error"` (the default) as the CSR068 fault; with "warn" as a
 * warning finding that lets the run go on (checked at the end).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it, after } from "node:test";
import { configureSimulator, CudaScriptError } from "cudascript";
import { lastLaunchWarnings } from "cudascript/dist/simulator/executor";
import type { BugCase } from "../corpus/buggy/case";
import { compileFile, kernel, REPO } from "./helpers";

const BUGGY = path.join(REPO, "test", "corpus", "buggy");
const files = fs.readdirSync(BUGGY).filter((f) => f.endsWith(".ts") && f !== "case.ts").sort();
const CODES: Record<string, string> = {
  "out-of-bounds": "CSR020",
  race: "CSR021",
  "divergent-barrier": "CSR022",
  "uninitialized-shared": "CSR023",
  "undefined-value": "CSR068",
  timeout: "CSR024",
  "divergent-warp": "CSR025",
  // Global-memory races (sanitizer/global-races.ts): within a block, between blocks; details.kind "race".
  "global-race": "CSR066",
  "grid-race": "CSR067",
};
const DETAIL_KINDS: Record<string, string> = { "global-race": "race", "grid-race": "race" };

after(() => configureSimulator({ sanitize: false, deadline: Infinity, workers: 2, inProcessThreshold: 32768, mainThreadExecutes: true, uninitializedShared: "warn", warn: (t: string) => void process.stderr.write(t) }));

function marked(file: string): { kind: string; line: number } {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const i = lines.findIndex((l) => l.includes("// @bug "));
  assert.ok(i >= 0, `${file} has no // @bug marker`);
  return { kind: /@bug ([\w-]+)/.exec(lines[i]!)![1]!, line: i + 1 };
}

function launch(file: string, sanitize: boolean, workers: number, uninitializedShared: "warn" | "error" = "error"): unknown {
  const { kind } = marked(file);
  const { bug } = require(path.join(REPO, "test", "dist", "corpus", "buggy", path.basename(file).replace(/\.ts$/, ".js"))) as { bug: BugCase };
  configureSimulator({
    sanitize,
    workers,
    inProcessThreshold: workers > 1 ? 0 : 1 << 30,
    mainThreadExecutes: workers === 1,
    deadline: kind === "timeout" ? Date.now() + 400 : Infinity,
    deadlineLabel: "test limit 0.4 s",
    uninitializedShared,
    warn: () => {},
  });
  const k = kernel(compileFile(file), bug.kernel);
  try {
    k.launch(bug.grid as number, bug.block as number, { sharedMem: bug.sharedMem })(...(bug.args() as never[]));
  } catch (e) {
    return e;
  } finally {
    configureSimulator({ deadline: Infinity });
  }
  return undefined;
}

for (const [label, sanitize, workers] of [["sanitizer on", true, 1], ["sanitizer on, 2 workers", true, 2], ["sanitizer off", false, 1]] as const) {
  describe(`seeded bugs (${label})`, () => {
    for (const f of files) {
      const file = path.join(BUGGY, f);
      const { kind, line } = marked(file);
      const { bug } = require(path.join(REPO, "test", "dist", "corpus", "buggy", f.replace(/\.ts$/, ".js"))) as { bug: BugCase };
      it(`${f}: ${kind} at line ${line}`, () => {
        const e = launch(file, sanitize, workers);
        if (!sanitize && bug.needsSanitizer && kind !== "timeout") {
          assert.equal(e, undefined, "without the sanitizer this bug goes unnoticed (as on a GPU)");
          return;
        }
        assert.ok(e instanceof CudaScriptError, `expected a CudaScriptError, got ${String(e)}`);
        assert.equal(e.code, CODES[kind], e.message);
        assert.equal(e.details?.kind, DETAIL_KINDS[kind] ?? kind, e.message);
        assert.equal(e.details?.kernel, bug.kernel, e.message);
        if (kind !== "timeout" || sanitize) {
          assert.equal(e.details?.line, line, e.message);
          assert.match(e.message, new RegExp(`${f.replace(".", "\\.")}:${line}:`));
        }
        if (kind !== "timeout") {
          assert.ok(e.details?.block, "names the block");
          assert.ok(e.details?.thread, "names the thread");
          assert.match(e.message, /block \(\d+, \d+, \d+\), thread \(\d+, \d+, \d+\)/);
        }
      });
    }
  });
}

describe('seeded undefined values, sanitizer on, uninitializedShared: "warn"', () => {
  for (const f of files) {
    const file = path.join(BUGGY, f);
    const { kind, line } = marked(file);
    if (kind !== "undefined-value") continue;
    for (const workers of [1, 2]) {
      it(`${f}: a CSR068 warning at line ${line}, and the run goes on (${workers} worker${workers > 1 ? "s" : ""})`, () => {
        const { bug } = require(path.join(REPO, "test", "dist", "corpus", "buggy", f.replace(/\.ts$/, ".js"))) as { bug: BugCase };
        assert.equal(launch(file, true, workers, "warn"), undefined, "the run is not stopped");
        const w = lastLaunchWarnings();
        assert.equal(w.length, 1, JSON.stringify(w));
        assert.equal(w[0]!.code, "CSR068");
        assert.equal(w[0]!.details?.kind, kind);
        assert.equal(w[0]!.details?.kernel, bug.kernel);
        assert.equal(w[0]!.details?.line, line);
        assert.ok(w[0]!.details?.block && w[0]!.details.thread, "names the block and the thread");
      });
    }
  }
});
