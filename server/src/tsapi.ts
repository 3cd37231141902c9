/**
 * The TypeScript API the checker itself uses: syntax kinds and node shapes must come from the same
 * instance the compiler parses with (the compiler's own `typescript` dependency), so the compiler re-exports it.
 */
export { ts } from "@cudascript/compiler";
export type { ts as TS } from "@cudascript/compiler";
