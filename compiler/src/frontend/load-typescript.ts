/**
 * Imported first by the compiler's entry (index.ts), so that TypeScript is in require.cache, loaded
 * through V8's code cache, before the front end requires it (see typescript-code-cache.ts).
 */
import { preloadTypeScript } from "./typescript-code-cache";

preloadTypeScript();
