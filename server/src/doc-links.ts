/**
 * `codeDescription.href` for each diagnostic code: a link to the code's section of
 * docs/diagnostics.md. The document is found next to the installation (the repository's docs/, or a
 * `docs/` folder shipped in the cudascript or compiler package) unless the `diagnostics.docsUrl`
 * setting names it. A code gets a link only when the document has a `## CSxxxx` heading for it;
 * the document is re-read when it changes, since it is written alongside the checker.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const RECHECK_MS = 2000;

interface LoadedDoc {
  readonly href: string;
  readonly file?: string;
  mtimeMs: number;
  /** code → anchor; undefined for documents that cannot be read (remote URLs): link every code. */
  anchors?: Map<string, string>;
  checkedAt: number;
}

export class DocLinks {
  private doc: LoadedDoc | undefined | null = null; // null: not looked for yet
  private configured = "";
  private lastLookup = 0;

  /** Sets the `diagnostics.docsUrl` setting (empty: look next to the installation). */
  configure(url: string): void {
    if (url === this.configured) return;
    this.configured = url;
    this.doc = null;
  }

  hrefFor(code: string): string | undefined {
    const doc = this.current();
    if (!doc) return undefined;
    if (!doc.anchors) return `${doc.href}#${code.toLowerCase()}`;
    const anchor = doc.anchors.get(code.toUpperCase());
    return anchor ? `${doc.href}#${anchor}` : undefined;
  }

  private current(): LoadedDoc | undefined {
    const now = Date.now();
    // Not found: look again now and then (the docs may be written while the server runs).
    if (this.doc === null || (this.doc === undefined && now - this.lastLookup > RECHECK_MS)) {
      this.lastLookup = now;
      this.doc = this.locate();
    } else if (this.doc?.file && now - this.doc.checkedAt > RECHECK_MS) {
      this.doc.checkedAt = now;
      try {
        if (fs.statSync(this.doc.file).mtimeMs !== this.doc.mtimeMs) this.doc = this.load(this.doc.file, this.doc.href);
      } catch {
        this.doc = this.locate();
      }
    }
    return this.doc ?? undefined;
  }

  private locate(): LoadedDoc | undefined {
    if (this.configured) {
      const file = toFilePath(this.configured);
      if (file) return this.load(file, pathToFileURL(file).href) ?? undefined;
      return { href: this.configured.replace(/#.*$/, ""), mtimeMs: 0, checkedAt: Date.now() };
    }
    for (const file of candidates()) {
      const d = this.load(file, pathToFileURL(file).href);
      if (d) return d;
    }
    return undefined;
  }

  private load(file: string, href: string): LoadedDoc | undefined {
    try {
      const st = fs.statSync(file);
      const text = fs.readFileSync(file, "utf8");
      return { href, file, mtimeMs: st.mtimeMs, anchors: headingAnchors(text), checkedAt: Date.now() };
    } catch {
      return undefined;
    }
  }
}

function toFilePath(url: string): string | undefined {
  if (url.startsWith("file:")) {
    try {
      return fileURLToPath(url.replace(/#.*$/, ""));
    } catch {
      return undefined;
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return undefined; // http(s) and other remote URLs
  return path.resolve(url);
}

function candidates(): string[] {
  // The repository (server/dist → docs/), the installed @cudascript/server package (dist/ → docs/, copied
  // in at pack time), then the extension bundle (dist/server.js + dist/docs/).
  const out = [
    path.resolve(__dirname, "..", "..", "docs", "diagnostics.md"),
    path.resolve(__dirname, "..", "docs", "diagnostics.md"),
    path.join(__dirname, "docs", "diagnostics.md"),
  ];
  for (const pkg of ["cudascript/package.json", "@cudascript/compiler/package.json"]) {
    try {
      const dir = path.dirname(require.resolve(pkg));
      out.push(path.join(dir, "docs", "diagnostics.md"), path.join(dir, "..", "docs", "diagnostics.md"));
    } catch {
      /* not installed */
    }
  }
  return [...new Set(out)];
}

/** `## CS1001` (optionally followed by a title) → the GitHub-style anchor of that heading. */
export function headingAnchors(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of markdown.matchAll(/^#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$/gm)) {
    const heading = m[1]!;
    const code = /^`?(CS\d{4})`?\b/i.exec(heading)?.[1]?.toUpperCase();
    if (!code || out.has(code)) continue;
    out.set(code, slug(heading));
  }
  return out;
}

function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s/g, "-");
}
