/**
 * Occupancy calculator (formulas of NVIDIA's `cuda_occupancy.h`); see `occupancy.ts`.
 * Also the package's `@cudascript/compiler/occupancy` entry point, which the runtime loads on every
 * launch it reports: modules here import nothing from the rest of the compiler (front end, TypeScript),
 * so running kernels never loads TypeScript (test/runtime/run-time-imports.test.ts).
 */
export * from "./archs";
export * from "./occupancy";
export { formatBytes, formatPercent } from "./suggest";
