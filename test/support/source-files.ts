/**
 * Every package's non-test TypeScript source (compiler, runtime, server, native-bindings, client: `src/`,
 * without `*.test.ts` and `*.d.ts`), for the tests that hold one fact to one place (the dtype table's
 * and the intrinsic registry's scans): each file's repository-relative path and text.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export interface SourceFile {
  /** Relative to the repository, with forward slashes: "compiler/src/ir/nodes.ts". */
  readonly rel: string;
  readonly text: string;
}

export function packageSources(repo: string): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.ts$/.test(e.name) && !/\.(test|d)\.ts$/.test(e.name)) out.push({ rel: path.relative(repo, p).split(path.sep).join("/"), text: fs.readFileSync(p, "utf8") });
    }
  };
  for (const pkg of ["compiler", "runtime", "server", "native-bindings", "client"]) {
    const src = path.join(repo, pkg, "src");
    if (fs.existsSync(src)) walk(src);
  }
  return out;
}
