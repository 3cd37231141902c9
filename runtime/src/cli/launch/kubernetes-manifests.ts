/**
 * The Kubernetes objects of a job: an Indexed Job (one pod per rank: the pod's completion index is its
 * rank, JOB_COMPLETION_INDEX) and a headless Service whose DNS name reaches rank 0's pod
 * (`<job>-0.<service>`: an Indexed Job's pods are named `<job>-<index>` and, with `subdomain` set to
 * the Service, resolvable as such). Each pod runs `npx cudascript run` on the program inside the image.
 */
import * as path from "node:path";
import { DistEnv } from "../../distributed/env";
import type { LaunchOptions } from "./options";

/** Rank 0's port in the pods (NCCL's and PyTorch's usual rendezvous port). */
export const KUBERNETES_PORT = 29500;

export interface Manifests {
  readonly name: string;
  readonly namespace: string;
  readonly service: Record<string, unknown>;
  readonly job: Record<string, unknown>;
}

/** A DNS-1035 label from a file name: `Monte_Carlo.ts` → `cudascript-monte-carlo`. */
export function jobName(options: Pick<LaunchOptions, "name" | "file">): string {
  if (options.name) return options.name;
  const base = path.basename(options.file).replace(/\.[^.]+$/, "").toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "");
  return `cudascript-${base || "job"}`.slice(0, 52).replace(/-+$/, "");
}

export function kubernetesManifests(options: LaunchOptions, namespace: string): Manifests {
  const name = jobName(options);
  const ranks = options.ranks ?? 2;
  const port = options.port ?? KUBERNETES_PORT;
  const simulator = options.backend === "simulator";
  const gpus = options.gpusPerRank ?? (simulator ? 0 : 1);
  const labels = { "app.kubernetes.io/name": "cudascript", "app.kubernetes.io/instance": name };
  const env = [
    { name: DistEnv.size, value: String(ranks) },
    { name: DistEnv.address, value: `${name}-0.${name}.${namespace}.svc:${port}` },
    { name: DistEnv.timeout, value: String(options.collectiveTimeout) },
    { name: DistEnv.job, value: name },
  ];
  const service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace, labels },
    spec: {
      clusterIP: "None",
      // Rank 0 must be reachable before it is "ready": the ranks meet while starting.
      publishNotReadyAddresses: true,
      selector: { "job-name": name },
      ports: [{ name: "rendezvous", port, targetPort: port, protocol: "TCP" }],
    },
  };
  const job = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, namespace, labels },
    spec: {
      completionMode: "Indexed",
      completions: ranks,
      parallelism: ranks,
      // One failed rank fails the job, and the Job controller ends the other pods.
      backoffLimit: 0,
      ...(options.timeout > 0 ? { activeDeadlineSeconds: Math.ceil(options.timeout) } : {}),
      template: {
        metadata: { labels },
        spec: {
          subdomain: name,
          restartPolicy: "Never",
          containers: [
            {
              name: "rank",
              image: options.image!,
              command: ["npx", "cudascript", "run", "--backend", options.backend, options.file, ...options.programArgs],
              env,
              ports: [{ containerPort: port, name: "rendezvous" }],
              ...(gpus > 0 ? { resources: { limits: { "nvidia.com/gpu": String(gpus) } } } : {}),
            },
          ],
        },
      },
    },
  };
  return { name, namespace, service, job };
}

/** One type of the Kubernetes API, as @kubernetes/client-node's generated models describe it. */
interface ModelClass {
  getAttributeTypeMap(): readonly { name: string; baseName: string; type: string }[];
}

/**
 * The problems of `value` as a `type` of the Kubernetes API, checked against @kubernetes/client-node's
 * models (generated from the API's OpenAPI spec): unknown fields, and values of the wrong kind.
 */
export function validateAgainstModels(models: Record<string, unknown>, type: string, value: unknown, at = ""): string[] {
  const where = at || type;
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return Array.isArray(value) ? value.flatMap((v, i) => validateAgainstModels(models, array[1]!, v, `${where}[${i}]`)) : [`${where}: expected a list`];
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map)
    return value && typeof value === "object" && !Array.isArray(value)
      ? Object.entries(value).flatMap(([k, v]) => validateAgainstModels(models, map[1]!, v, `${where}.${k}`))
      : [`${where}: expected a map`];
  switch (type) {
    case "string":
      return typeof value === "string" ? [] : [`${where}: expected a string, got ${JSON.stringify(value)}`];
    case "number":
      return typeof value === "number" ? [] : [`${where}: expected a number, got ${JSON.stringify(value)}`];
    case "boolean":
      return typeof value === "boolean" ? [] : [`${where}: expected a boolean, got ${JSON.stringify(value)}`];
    case "IntOrString":
      return typeof value === "number" || typeof value === "string" ? [] : [`${where}: expected a number or a string`];
    case "any":
    case "object":
      return [];
  }
  const model = models[type] as ModelClass | undefined;
  if (!model || typeof model.getAttributeTypeMap !== "function") return [`${where}: no model for type ${type}`];
  if (!value || typeof value !== "object" || Array.isArray(value)) return [`${where}: expected an object (${type})`];
  const fields = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  return Object.entries(value).flatMap(([k, v]) => {
    const fieldType = fields.get(k);
    return fieldType === undefined ? [`${where}.${k}: not a field of ${type}`] : validateAgainstModels(models, fieldType, v, `${where}.${k}`);
  });
}
