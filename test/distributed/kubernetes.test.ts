/**
 * `cudascript launch --launcher kubernetes`: the manifests (an Indexed Job and a headless Service)
 * checked against the Kubernetes API types of @kubernetes/client-node, `--dry-run`, and the launcher
 * driven against a fake API server on loopback (fake-kube-api.ts, a test double that runs each pod
 * as a local process), which runs a 4-rank job for real: the ranks find each other through the
 * manifest's environment alone.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { kubernetesManifests, validateAgainstModels } from "cudascript/dist/cli/launch/kubernetes-manifests";
import type { LaunchOptions } from "cudascript/dist/cli/launch/options";
import { startFakeApi, type FakeApi } from "./fake-kube-api";
import { FIXTURES, launch, survivors } from "./helpers";
import { freePort } from "cudascript/dist/cli/launch/job";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const models = require("@kubernetes/client-node") as Record<string, unknown>;

const options: LaunchOptions = {
  file: "app/main.ts",
  entry: "/app/main.ts",
  programArgs: ["--steps", "10"],
  launcher: "kubernetes",
  ranks: 8,
  backend: "gpu",
  collectiveTimeout: 60,
  timeout: 600,
  timeoutText: "600",
  sbatch: false,
  image: "registry.example/app:1",
  dryRun: false,
};

describe("Kubernetes manifests", () => {
  it("are a valid V1Service and V1Job: headless, Indexed, one pod per rank with nvidia.com/gpu, rank 0 reachable by its pod's DNS name", () => {
    const m = kubernetesManifests(options, "research");
    assert.deepEqual(validateAgainstModels(models, "V1Service", m.service), []);
    assert.deepEqual(validateAgainstModels(models, "V1Job", m.job), []);
    const job = m.job as any;
    assert.equal(job.spec.completionMode, "Indexed");
    assert.equal(job.spec.completions, 8);
    assert.equal(job.spec.parallelism, 8);
    assert.equal(job.spec.backoffLimit, 0);
    assert.equal(job.spec.activeDeadlineSeconds, 600);
    assert.equal(job.spec.template.spec.subdomain, m.name);
    const c = job.spec.template.spec.containers[0];
    assert.deepEqual(c.resources, { limits: { "nvidia.com/gpu": "1" } });
    assert.deepEqual(c.command, ["npx", "cudascript", "run", "--backend", "gpu", "app/main.ts", "--steps", "10"]);
    assert.deepEqual(Object.fromEntries(c.env.map((e: any) => [e.name, e.value])), {
      CUDASCRIPT_WORLD_SIZE: "8",
      CUDASCRIPT_DIST_ADDR: "cudascript-main-0.cudascript-main.research.svc:29500",
      CUDASCRIPT_DIST_TIMEOUT: "60",
      CUDASCRIPT_DIST_JOB: "cudascript-main",
    });
    assert.equal((m.service as any).spec.clusterIP, "None");
    assert.deepEqual((m.service as any).spec.selector, { "job-name": "cudascript-main" });
    const sim = kubernetesManifests({ ...options, backend: "simulator" }, "default").job as any;
    assert.equal(sim.spec.template.spec.containers[0].resources, undefined);
  });

  it("the check against the API types finds unknown fields and values of the wrong kind", () => {
    const m = kubernetesManifests(options, "default").job as any;
    const bad = { ...m, spec: { ...m.spec, completionsMode: "Indexed", parallelism: "8", template: { ...m.spec.template, spec: { ...m.spec.template.spec, containers: [{ ...m.spec.template.spec.containers[0], resources: { limits: { "nvidia.com/gpu": 1 } } }] } } } };
    assert.deepEqual(validateAgainstModels(models, "V1Job", bad).sort(), [
      'V1Job.spec.completionsMode: not a field of V1JobSpec',
      'V1Job.spec.parallelism: expected a number, got "8"',
      "V1Job.spec.template.spec.containers[0].resources.limits.nvidia.com/gpu: expected a string, got 1",
    ]);
  });

  it("--dry-run prints them as YAML and starts nothing", async () => {
    const r = await launch(["--launcher", "kubernetes", "-n", "4", "--image", "registry.example/app:1", "--namespace", "ml", "--dry-run", path.join(FIXTURES, "split-sum.ts")]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^kind: Service$/m);
    assert.match(r.stdout, /^---$/m);
    assert.match(r.stdout, /completionMode: Indexed/);
    assert.match(r.stdout, /nvidia\.com\/gpu: '1'/);
    assert.match(r.stdout, /value: cudascript-split-sum-0\.cudascript-split-sum\.ml\.svc:29500/);
  });
});

describe("the kubernetes launcher against a fake API server on loopback", () => {
  let api: FakeApi;
  let kubeconfig: string;
  before(async () => {
    api = await startFakeApi();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cs-kube-"));
    kubeconfig = path.join(dir, "config");
    fs.writeFileSync(
      kubeconfig,
      [
        "apiVersion: v1",
        "kind: Config",
        // Plain HTTP on loopback: client-node refuses it unless TLS verification is off.
        `clusters: [{ name: fake, cluster: { server: "${api.url}", insecure-skip-tls-verify: true } }]`,
        "users: [{ name: ci, user: { token: not-a-secret } }]",
        "contexts: [{ name: fake, context: { cluster: fake, user: ci, namespace: ci-ns } }]",
        "current-context: fake",
        "",
      ].join("\n"),
    );
  });
  after(() => api.close());

  const kube = async (args: string[]) => launch(["--launcher", "kubernetes", "--image", "registry.example/app:1", "--backend", "simulator", "--port", String(await freePort()), ...args], { KUBECONFIG: kubeconfig });

  it("runs a 4-rank job: creates the Service and the Job, prints each pod's log with its rank, deletes both", async () => {
    const r = await kube(["-n", "4", path.relative(process.cwd(), path.join(FIXTURES, "split-sum.ts"))]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    for (let rank = 0; rank < 4; rank++) assert.match(r.stdout, new RegExp(`^\\[rank ${rank}\\] rank ${rank} of 4 .*sum of squares 333833500 OK; ranks 0,1,2,3$`, "m"));
    assert.match(r.stderr, /launched cudascript-split-sum in namespace ci-ns: an Indexed Job of 4 pods/);
    assert.deepEqual(api.requests.slice(0, 2), ["POST /api/v1/namespaces/ci-ns/services", "POST /apis/batch/v1/namespaces/ci-ns/jobs"]);
    assert.deepEqual(validateAgainstModels(models, "V1Job", api.created.job), []);
    assert.deepEqual(api.deleted, ["jobs/cudascript-split-sum", "services/cudascript-split-sum"]);
  });

  it("a failing pod fails the job with that rank's error and exit code; a killed one is CSR075; no process left", async () => {
    api.deleted.length = 0;
    const failed = await kube(["-n", "3", path.join(FIXTURES, "failures.ts"), "fail", "1"]);
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stdout, /^\[rank 1\] Error: rank 1 gives up on purpose$/m);
    assert.match(failed.stderr, /rank 1 failed \(exit code 1\)/);
    const killed = await kube(["-n", "3", path.join(FIXTURES, "failures.ts"), "kill", "2"]);
    assert.equal(killed.code, 137, killed.stderr);
    assert.match(killed.stderr, /error CSR075: rank 2 was killed/);
    assert.deepEqual(await survivors(api.pids), []);
    assert.ok(api.deleted.includes("jobs/cudascript-failures"));
  });

  it("an API that refuses the Job is CSR076 with the server's message", async () => {
    api.refuseJobs = 403;
    try {
      const r = await kube(["-n", "2", path.join(FIXTURES, "split-sum.ts")]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /error CSR076: the Kubernetes API refused the job cudascript-split-sum in namespace ci-ns: HTTP 403: jobs\.batch is forbidden/);
    } finally {
      api.refuseJobs = undefined;
    }
  });
});
