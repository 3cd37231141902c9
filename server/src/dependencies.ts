/**
 * Which project files each checked file reads, transitively through imports and re-exports, so that
 * editing a file that exports a device function or a constant re-checks the open files that import it
 * (directly or through a barrel).
 */
import type { KernelChecker } from "@cudascript/compiler";

const MAX_FILES = 500;

export class DependencyGraph {
  /** file → every project file it (transitively) imports. */
  private readonly deps = new Map<string, ReadonlySet<string>>();

  /** Recomputes `file`'s dependencies from the checker's current view of the project. */
  update(checker: KernelChecker, file: string): void {
    this.deps.set(file, transitiveImports(checker, file));
  }

  forget(file: string): void {
    this.deps.delete(file);
  }

  /** Files (among those tracked) that import `file`, directly or not. */
  dependentsOf(file: string): string[] {
    const out: string[] = [];
    for (const [f, set] of this.deps) if (f !== file && set.has(file)) out.push(f);
    return out;
  }
}

export function transitiveImports(checker: KernelChecker, file: string): Set<string> {
  const seen = new Set<string>();
  const stack = [file];
  while (stack.length && seen.size < MAX_FILES) {
    const f = stack.pop()!;
    const info = checker.front.moduleInfo(f);
    if (!info) continue;
    const specifiers = new Set<string>();
    for (const b of info.imports.values()) specifiers.add(b.module);
    for (const b of info.reexports.values()) specifiers.add(b.module);
    for (const spec of specifiers) {
      if (spec === "cudascript") continue;
      const target = checker.project.resolveImport(spec, info.file);
      if (!target || target === file || seen.has(target)) continue;
      seen.add(target);
      stack.push(target);
    }
  }
  return seen;
}
