export { emitSimulatorModule, SIM_ABI, type SimEmitOptions, type SimKernelInfo, type SimModule, type SimSite } from "./emit";
export { makeArtifact, serializeIr, ARTIFACT_FORMAT, type ArtifactOptions, type KernelArtifact, type KernelEntry } from "./artifact";
export type { ProfileSite } from "./emit/profile";
