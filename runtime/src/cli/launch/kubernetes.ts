import type { LaunchOptions } from "./options";

export async function launchKubernetes(_options: LaunchOptions): Promise<number> {
  console.error("cudascript: --launcher kubernetes is not available yet");
  return 1;
}
