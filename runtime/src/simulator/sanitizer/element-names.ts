/**
 * How the sanitizer names one element of a shared array in its findings. A shared array of records is
 * one array per field, named `sh.x` by the compiler (compiler/src/frontend/lower-records.ts): its
 * element `i` is the field of record `i`, `sh[i].x`, which is what the kernel wrote.
 */
export function sharedElementText(name: string, index: number): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? `${name.slice(0, dot)}[${index}].${name.slice(dot + 1)}` : `${name}[${index}]`;
}
