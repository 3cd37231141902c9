/**
 * `cudascript launch --launcher kubernetes --image <ref>`: creates the headless Service and the Indexed
 * Job of kubernetes-manifests.ts through the cluster's API (@kubernetes/client-node, an optional peer
 * dependency loaded only here, with the user's kubeconfig), waits for the Job to succeed or fail,
 * prints each pod's log prefixed with its rank, and deletes both objects (the Job with its pods).
 * `--dry-run` prints the manifests and starts nothing. The manifests are checked against the API's
 * types (the client's generated models) before anything is sent.
 */
import { jobError } from "./job";
import { kubernetesManifests, validateAgainstModels, type Manifests } from "./kubernetes-manifests";
import type { LaunchOptions } from "./options";
import { rankPrefix } from "./rank-output";

/** How often the Job's status is read. */
const POLL_MS = 1000;

/** The part of @kubernetes/client-node (1.x) this launcher uses. */
interface KubeClient {
  KubeConfig: new () => {
    loadFromDefault(): void;
    getContextObject(name: string): { namespace?: string } | null | undefined;
    getCurrentContext(): string;
    makeApiClient<T>(api: new (...args: never[]) => T): T;
  };
  BatchV1Api: new (...args: never[]) => BatchApi;
  CoreV1Api: new (...args: never[]) => CoreApi;
  dumpYaml(value: unknown): string;
  [model: string]: unknown;
}
interface JobStatus {
  status?: { succeeded?: number; failed?: number; conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}
interface Pod {
  metadata?: { name?: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  status?: { phase?: string; containerStatuses?: { state?: { terminated?: { exitCode?: number; reason?: string; signal?: number; finishedAt?: string | Date } } }[] };
}
interface BatchApi {
  createNamespacedJob(p: { namespace: string; body: unknown }): Promise<unknown>;
  readNamespacedJobStatus(p: { name: string; namespace: string }): Promise<JobStatus>;
  deleteNamespacedJob(p: { name: string; namespace: string; propagationPolicy?: string }): Promise<unknown>;
}
interface CoreApi {
  createNamespacedService(p: { namespace: string; body: unknown }): Promise<unknown>;
  deleteNamespacedService(p: { name: string; namespace: string }): Promise<unknown>;
  listNamespacedPod(p: { namespace: string; labelSelector?: string }): Promise<{ items: Pod[] }>;
  readNamespacedPodLog(p: { name: string; namespace: string }): Promise<string>;
}

function loadClient(): KubeClient | undefined {
  try {
    return require("@kubernetes/client-node") as KubeClient;
  } catch {
    return undefined;
  }
}

/** The manifests' problems as Kubernetes API objects (empty when valid). */
export function manifestProblems(client: KubeClient, m: Manifests): string[] {
  return [...validateAgainstModels(client, "V1Service", m.service), ...validateAgainstModels(client, "V1Job", m.job)];
}

function apiError(e: unknown): string {
  const err = e as { code?: number; body?: unknown; message?: string };
  const body = typeof err.body === "string" ? err.body : err.body ? JSON.stringify(err.body) : "";
  const message = /"message":"([^"]*)"/.exec(body)?.[1];
  return `${err.code ? `HTTP ${err.code}: ` : ""}${message ?? err.message ?? String(e)}`;
}

export async function launchKubernetes(options: LaunchOptions): Promise<number> {
  const client = loadClient();
  const missing = "--launcher kubernetes uses @kubernetes/client-node, which is not installed: npm install --save-dev @kubernetes/client-node";
  let namespace = options.namespace ?? "default";
  let kubeConfig: InstanceType<KubeClient["KubeConfig"]> | undefined;
  if (client && !options.dryRun) {
    kubeConfig = new client.KubeConfig();
    try {
      kubeConfig.loadFromDefault();
    } catch (e) {
      console.error(jobError("CSR076", `no usable kubeconfig (${(e as Error).message}): set KUBECONFIG or write ~/.kube/config`));
      return 1;
    }
    namespace = options.namespace ?? kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace ?? "default";
  }
  const manifests = kubernetesManifests(options, namespace);
  if (client) {
    const problems = manifestProblems(client, manifests);
    if (problems.length > 0) {
      console.error(jobError("CSR076", `the generated manifests are not valid Kubernetes objects (a bug of cudascript): ${problems.join("; ")}`));
      return 1;
    }
  }
  if (options.dryRun) {
    // JSON is YAML too: without the client the manifests still print, unvalidated.
    const yaml = (o: unknown) => (client ? client.dumpYaml(o) : JSON.stringify(o, null, 2) + "\n");
    process.stdout.write(`${yaml(manifests.service)}---\n${yaml(manifests.job)}`);
    if (!client) console.error(`cudascript: note: printed as JSON and not checked against the Kubernetes API types: ${missing}`);
    return 0;
  }
  if (!client || !kubeConfig) {
    console.error(jobError("CSR076", missing));
    return 1;
  }
  const batch = kubeConfig.makeApiClient(client.BatchV1Api);
  const core = kubeConfig.makeApiClient(client.CoreV1Api);
  const { name } = manifests;
  const ranks = options.ranks ?? 2;
  try {
    await core.createNamespacedService({ namespace, body: manifests.service });
    await batch.createNamespacedJob({ namespace, body: manifests.job });
  } catch (e) {
    console.error(jobError("CSR076", `the Kubernetes API refused the job ${name} in namespace ${namespace}: ${apiError(e)}`));
    await cleanUp(batch, core, name, namespace);
    return 1;
  }
  console.error(`cudascript: launched ${name} in namespace ${namespace}: an Indexed Job of ${ranks} pods and a headless Service; waiting for it to end`);
  let stopped: string | undefined;
  const stop = (why: string) => () => (stopped = why);
  const onInt = stop("SIGINT"), onTerm = stop("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  const deadline = options.timeout > 0 ? Date.now() + options.timeout * 1000 + 5000 : Infinity;
  let outcome: "succeeded" | "failed" | "stopped" = "stopped";
  try {
    for (;;) {
      if (stopped || Date.now() > deadline) break;
      const job = await batch.readNamespacedJobStatus({ name, namespace });
      const failedCondition = job.status?.conditions?.find((c) => c.type === "Failed" && c.status === "True");
      if ((job.status?.succeeded ?? 0) >= ranks) {
        outcome = "succeeded";
        break;
      }
      if (failedCondition || (job.status?.failed ?? 0) > 0) {
        outcome = "failed";
        break;
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const failure = await printLogs(core, name, namespace);
    if (outcome === "succeeded") return 0;
    if (outcome === "stopped") {
      console.error(stopped ? `cudascript: the job was stopped (${stopped}); its pods are deleted` : `cudascript: the job ran longer than --timeout ${options.timeoutText} s and was stopped`);
      return stopped ? 130 : 124;
    }
    if (failure?.killed) {
      console.error(jobError("CSR075", `rank ${failure.rank} was killed (${failure.reason}); the Job's other pods were stopped`));
      return failure.code;
    }
    console.error(`cudascript: rank ${failure?.rank ?? "?"} failed (exit code ${failure?.code ?? 1}): its error is above; the Job's other pods were stopped`);
    return failure?.code ?? 1;
  } catch (e) {
    console.error(jobError("CSR076", `lost track of the job ${name}: ${apiError(e)}`));
    return 1;
  } finally {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
    await cleanUp(batch, core, name, namespace);
  }
}

/** Each pod's log, in rank order, prefixed; returns the first failed rank (by finishing time). */
async function printLogs(core: CoreApi, name: string, namespace: string): Promise<{ rank: string; code: number; killed: boolean; reason: string } | undefined> {
  const pods = (await core.listNamespacedPod({ namespace, labelSelector: `job-name=${name}` })).items;
  const rankOf = (p: Pod) => p.metadata?.annotations?.["batch.kubernetes.io/job-completion-index"] ?? p.metadata?.labels?.["batch.kubernetes.io/job-completion-index"] ?? "?";
  pods.sort((a, b) => Number(rankOf(a)) - Number(rankOf(b)));
  let first: { rank: string; code: number; killed: boolean; reason: string; at: number } | undefined;
  for (const pod of pods) {
    const rank = rankOf(pod);
    let log = "";
    try {
      log = await core.readNamespacedPodLog({ name: pod.metadata!.name!, namespace });
    } catch {
      // a pod that never started has no log
    }
    for (const line of log.split("\n")) if (line !== "") process.stdout.write(rankPrefix(rank) + line + "\n");
    const t = pod.status?.containerStatuses?.[0]?.state?.terminated;
    if (t && t.exitCode !== 0) {
      const at = t.finishedAt ? new Date(t.finishedAt).getTime() : Infinity;
      const killed = t.reason === "OOMKilled" || (t.exitCode ?? 0) > 128 || t.signal !== undefined;
      if (!first || at < first.at) first = { rank, code: t.exitCode ?? 1, killed, reason: t.reason ?? `exit code ${t.exitCode}`, at };
    }
  }
  return first;
}

async function cleanUp(batch: BatchApi, core: CoreApi, name: string, namespace: string): Promise<void> {
  await batch.deleteNamespacedJob({ name, namespace, propagationPolicy: "Foreground" }).catch(() => {});
  await core.deleteNamespacedService({ name, namespace }).catch(() => {});
}
