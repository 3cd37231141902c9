/** Occupancy calculator (formulas of NVIDIA's `cuda_occupancy.h`); see `occupancy.ts`. */
export * from "./archs";
export * from "./occupancy";
export { formatBytes, formatPercent } from "./suggest";
