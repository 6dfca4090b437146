/**
 * Crash safety (issue 9, "Never down"): the built CLI is SIGKILLed at seeded random points of a
 * Deployment's create, rolling update, scale down and delete, `kubeplane up` is started again on the
 * same data directory (SQLite), and the cluster must converge to exactly what the acknowledged writes
 * asked for: exact replica counts, one ReplicaSet per template, no pod created twice, no acknowledged
 * write lost.
 *
 * **Kill points.** A scenario is a setup (not timed) and a sequence of kubectl writes (steps). A kill
 * point is (step k, E events): run steps 1…k, each waiting for kubectl's acknowledgement, then SIGKILL
 * the process as soon as a watch on the Deployment's pods, started from a revision before step 1, has
 * delivered E events. Counting watch events instead of milliseconds ties the kill to the controllers'
 * progress (E = 0 kills right after the acknowledgement, before any controller reacted; larger E land
 * mid-way), but the kill still races real time, since the watch runs behind the server. A SeededRand
 * per scenario draws the points (see {@link killPoints}); maxEvents stays below the number of pod
 * events the steps always make, so every point is reached. The assertions hold for any interleaving;
 * each test reports where its kill landed (`# at the kill: …`, read from the log before the restart).
 *
 * **No lost acknowledged write.** What kubectl reported as done before the kill is there after the
 * restart: the image, the replica count, a generation no lower than acknowledged, a deleted Deployment
 * still gone. Every pod event the watch delivered before the kill was committed (watch events go out
 * only after COMMIT, ADR 0001), so its revision must be in the revision log with that pod's key.
 *
 * **No duplicate pods.** After convergence, the live pods number spec.replicas and each one's
 * controller is the newest ReplicaSet of the Deployment. That alone would miss a surplus pod created
 * after the restart and deleted again, so the revision log (`kine` in state.db, read-only beside the
 * running process, as the data-at-rest test does) is the ground truth: the ReplicaSet the Deployment
 * converged to created exactly as many pods as it was ever asked for, kill and restart included.
 * No compaction runs meanwhile (the API server compacts after 5 minutes; a process here lives seconds).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Deployment, Pod, ReplicaSet } from '../../src/api/index.js';
import { realClock } from '../../src/util/clock/index.js';
import { SeededRand } from '../../src/util/random/index.js';
import { startKubeplane, eventually, removeDataDir, type Kubeplane } from './harness.js';

/** Replicas of every Deployment here: maxSurge 2 and maxUnavailable 1 under the default 25 %/25 %. */
const REPLICAS = 6;
/** Images of successive templates: created with the first, updated to the next ones. */
const IMAGES = ['nginx:1.25', 'nginx:1.26', 'nginx:1.27'] as const;
/**
 * Pods start 200–400 ms after binding: a rollout of 6 takes about a second, long enough for kill
 * points to land mid-way, short enough for the file to stay within its time budget.
 */
const UP_ARGS = ['--pod-start-delay', '200'];
const NODES = 3;
const REVISION = 'deployment.kubernetes.io/revision';

type Obj = Deployment | ReplicaSet | Pod;

/** What kubectl acknowledged: the state the Deployment must have after the restart. */
interface Ack {
  /** The template's image from then on. */
  image?: string;
  replicas?: number;
  /** The Deployment's generation is at least this. */
  generation?: number;
  /** The write as kubectl printed it (create, set image): its revision and what it did to the key. */
  written?: { revision: number; op: 'created' | 'updated' };
  deleted?: boolean;
}

/** One kubectl write of a scenario, returning what it acknowledged. */
type Step = (kp: Kubeplane, name: string, before: Ack) => Promise<Ack>;

interface Scenario {
  title: string;
  seed: number;
  /** Kill points to draw. */
  points: number;
  /** Kill points draw E in [0, maxEvents): fewer than the pod events the steps always make. */
  maxEvents: number;
  /** Brings the Deployment to where the steps start (no kill meanwhile); undefined: it does not exist. */
  setup?: (kp: Kubeplane, name: string) => Promise<Ack>;
  steps: Step[];
}

/** A kill point (see the module comment). */
interface KillPoint {
  step: number;
  events: number;
}

/**
 * `scenario.points` kill points from its seed. The first kills right after the acknowledgement (E = 0),
 * the moment no watch event can pick (controllers react within a millisecond, and the first event
 * reaches kubectl after a whole burst of writes); the others draw E stratified over [1, maxEvents), so
 * early, middle and late kills are all drawn whatever the seed.
 */
function killPoints(scenario: Scenario): KillPoint[] {
  const rand = new SeededRand(scenario.seed);
  const strata = scenario.points - 1;
  return Array.from({ length: scenario.points }, (_, i) => {
    const step = 1 + rand.int(scenario.steps.length);
    if (i === 0) return { step, events: 0 };
    const lo = 1 + Math.floor(((i - 1) * (scenario.maxEvents - 1)) / strata);
    const hi = 1 + Math.floor((i * (scenario.maxEvents - 1)) / strata);
    return { step, events: lo + rand.int(hi - lo) };
  });
}

const manifest = (name: string): string =>
  JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name } },
    spec: {
      replicas: REPLICAS,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'nginx', image: IMAGES[0] }] } },
    },
  });

const imageOf = (o: Deployment | ReplicaSet): string => o.spec?.template?.spec?.containers[0]?.image ?? '';
const revisionOf = (rs: ReplicaSet): number => Number(rs.metadata?.annotations?.[REVISION]);
const isReady = (p: Pod): boolean => (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** The acknowledged state of a write whose `-o json` output (the Deployment as written) is `out`. */
function ackOf(out: string, op: 'created' | 'updated'): Ack {
  const d = JSON.parse(out) as Deployment;
  return {
    image: imageOf(d),
    replicas: d.spec?.replicas ?? 0,
    generation: d.metadata?.generation ?? 0,
    written: { revision: Number(d.metadata?.resourceVersion), op },
  };
}

const create: Step = async (kp, name) => ackOf(await kp.kubectlOk(['create', '-f', '-', '-o', 'json'], manifest(name)), 'created');

const setImage =
  (image: string): Step =>
  async (kp, name) =>
    ackOf(await kp.kubectlOk(['set', 'image', `deploy/${name}`, `nginx=${image}`, '-o', 'json']), 'updated');

/** `kubectl scale` prints no object; a scale changes the spec, so the generation goes up by one. */
const scaleTo =
  (replicas: number): Step =>
  async (kp, name, before) => {
    assert.equal(await kp.kubectlOk(['scale', `deploy/${name}`, `--replicas=${replicas}`]), `deployment.apps/${name} scaled\n`);
    return { image: before.image ?? '', replicas, generation: (before.generation ?? 0) + 1 };
  };

const remove: Step = async (kp, name) => {
  assert.equal(await kp.kubectlOk(['delete', 'deploy', name]), `deployment.apps "${name}" deleted\n`);
  return { deleted: true };
};

/** Creates the Deployment and waits for its rollout; the acknowledged state is the rolled-out one. */
async function createdAndRolledOut(kp: Kubeplane, name: string): Promise<Ack> {
  const ack = await create(kp, name, {});
  await kp.kubectlOk(['rollout', 'status', `deploy/${name}`, '--timeout=60s']);
  return ack;
}

const SCENARIOS: Scenario[] = [
  // 6 pods × (ADDED, bound, ContainerCreating, Running) = 24 events.
  { title: 'create', seed: 11, points: 4, maxEvents: 22, steps: [create] },
  // At least 6 new pods × 4 + 6 old pods × (terminating, grace 0, DELETED) = 42 events (v3 adds more).
  { title: 'rolling update', seed: 22, points: 4, maxEvents: 40, setup: createdAndRolledOut, steps: [setImage(IMAGES[1]), setImage(IMAGES[2])] },
  // 4 pods × (terminating, grace 0, DELETED) = 12 events.
  { title: 'scale down', seed: 33, points: 4, maxEvents: 11, setup: createdAndRolledOut, steps: [scaleTo(2)] },
  // 6 pods × (terminating, grace 0, DELETED) = 18 events.
  { title: 'delete', seed: 44, points: 4, maxEvents: 17, setup: createdAndRolledOut, steps: [remove] },
];

/** One delivered watch event: its type, the pod's name and the revision it was written at. */
interface PodEvent {
  type: string;
  name: string;
  revision: number;
}

/**
 * `kubectl get --raw` on the pods watch of the Deployment `name` from revision `from`: the watch
 * replays every event after `from`, so it misses nothing, however late kubectl connects.
 */
class PodWatch {
  readonly events: PodEvent[] = [];
  /** Set when the watch ended (kubectl exited) or sent an ERROR event. */
  private ended: string | undefined;
  private buffered = '';
  private readonly child: ChildProcess;
  private readonly closed: Promise<void>;
  private readonly listeners: (() => boolean)[] = [];

  constructor(kp: Kubeplane, name: string, from: string) {
    this.child = kp.spawnKubectl(['get', '--raw', `/api/v1/namespaces/default/pods?watch=1&resourceVersion=${from}&labelSelector=app%3D${name}`]);
    this.child.stdout?.on('data', (d: Buffer) => this.receive(d.toString()));
    this.closed = new Promise((ok) =>
      this.child.on('close', () => {
        this.end('kubectl exited');
        ok();
      }),
    );
  }

  /** Resolves once `n` events were delivered; rejects if the watch ends or 30 s pass first. */
  delivered(n: number): Promise<void> {
    return new Promise((ok, fail) => {
      const timer = realClock.setTimer(30_000, () => fail(new Error(`the watch delivered ${this.events.length} of ${n} pod events in 30 s`)));
      const check = (): boolean => {
        if (this.events.length >= n) ok();
        else if (this.ended !== undefined) fail(new Error(`the watch ended (${this.ended}) after ${this.events.length} of ${n} pod events`));
        else return false;
        timer.stop();
        return true;
      };
      if (!check()) this.listeners.push(check);
    });
  }

  /**
   * Once the server is dead: waits for kubectl to have printed everything the server sent before it
   * died (it exits when the connection drops) and returns the events; throws if the watch failed.
   */
  async drained(): Promise<PodEvent[]> {
    await this.closed;
    assert.equal(this.ended, 'kubectl exited');
    return this.events;
  }

  /** Ends kubectl (a watch on a live server). */
  stop(): void {
    this.child.kill('SIGKILL');
  }

  private receive(chunk: string): void {
    this.buffered += chunk;
    const lines = this.buffered.split('\n');
    this.buffered = lines.pop() ?? '';
    for (const line of lines.filter((l) => l.trim() !== '')) {
      const e = JSON.parse(line) as { type: string; object: Obj };
      if (e.type === 'ERROR') this.end(`ERROR event: ${line}`);
      else this.events.push({ type: e.type, name: e.object.metadata?.name ?? '', revision: Number(e.object.metadata?.resourceVersion) });
    }
    this.notify();
  }

  private end(why: string): void {
    this.ended ??= why;
    this.notify();
  }

  private notify(): void {
    for (let i = this.listeners.length - 1; i >= 0; i--) if (this.listeners[i]!()) this.listeners.splice(i, 1);
  }
}

/** The revision log of `dataDir`, read-only, while the process that owns it runs. */
function withLog<T>(dataDir: string, read: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'state.db'), { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** For each of `revisions`, its log row as `<key> created|updated|deleted`, or `missing`. */
function logRows(dataDir: string, revisions: number[]): Map<number, string> {
  return withLog(dataDir, (db) => {
    const row = db.prepare<[number], { name: string; created: number; deleted: number }>('SELECT name, created, deleted FROM kine WHERE id = ?');
    return new Map(
      revisions.map((rev) => {
        const r = row.get(rev);
        return [rev, r ? `${r.name} ${r.created ? 'created' : r.deleted ? 'deleted' : 'updated'}` : 'missing'];
      }),
    );
  });
}

/** Pods ever created for the Deployment `name`, by the name of their controller (a ReplicaSet). */
function podsEverCreated(dataDir: string, name: string): Record<string, number> {
  return withLog(dataDir, (db) => {
    const rows = db
      .prepare<[string], { owner: string; n: number }>(
        `SELECT json_extract(value, '$.metadata.ownerReferences[0].name') AS owner, COUNT(*) AS n FROM kine
         WHERE created = 1 AND name LIKE ? GROUP BY owner ORDER BY owner`,
      )
      .all(`/registry/core/pods/default/${name}-%`);
    return Object.fromEntries(rows.map((r) => [r.owner, r.n]));
  });
}

/**
 * Where the kill landed, from the log while no process owns it: the Deployment's image and replicas,
 * each ReplicaSet's spec.replicas, and its pods (total, Ready, terminating). Reported, not asserted
 * (it depends on how the kill raced the controllers), to show what the restart had to recover from.
 */
function stateAtKill(dataDir: string, name: string): string {
  const live = (db: Database.Database, prefix: string): Obj[] =>
    db
      .prepare<[string], string>(
        `SELECT k.value FROM kine AS k WHERE k.name LIKE ? AND k.deleted = 0 AND k.id = (SELECT MAX(m.id) FROM kine AS m WHERE m.name = k.name)`,
      )
      .pluck()
      .all(`${prefix}%`)
      .map((v) => JSON.parse(v) as Obj);
  return withLog(dataDir, (db) => {
    const [d] = live(db, `/registry/apps/deployments/default/${name}`) as Deployment[];
    const rss = live(db, `/registry/apps/replicasets/default/${name}-`) as ReplicaSet[];
    const pods = live(db, `/registry/core/pods/default/${name}-`) as Pod[];
    const podsOf = (rs: ReplicaSet): Pod[] => pods.filter((p) => p.metadata?.ownerReferences?.[0]?.uid === rs.metadata?.uid);
    const rsState = rss.map((rs) => {
      const own = podsOf(rs);
      return `${imageOf(rs)} ${rs.spec?.replicas}: ${own.length} pods, ${own.filter(isReady).length} Ready, ${own.filter((p) => p.metadata?.deletionTimestamp).length} terminating`;
    });
    const terminating = pods.filter((p) => p.metadata?.deletionTimestamp).length;
    return `at the kill: ${d ? `Deployment ${imageOf(d)} × ${d.spec?.replicas}` : 'no Deployment'}; ReplicaSets: ${rsState.join('; ') || 'none'}; ${pods.length} pods (${terminating} terminating)`;
  });
}

/** Asserts that every write acknowledged before the kill (kubectl's and the watch's) is in the log. */
function assertDurable(dataDir: string, name: string, acks: Ack[], seen: PodEvent[]): void {
  const expected = new Map<number, string>();
  for (const { written } of acks) if (written) expected.set(written.revision, `/registry/apps/deployments/default/${name} ${written.op}`);
  const kind = { ADDED: 'created', MODIFIED: 'updated', DELETED: 'deleted' } as Record<string, string>;
  for (const e of seen) expected.set(e.revision, `/registry/core/pods/default/${e.name} ${kind[e.type] ?? e.type}`);
  assert.deepEqual(logRows(dataDir, [...expected.keys()]), expected);
}

/** The Deployment `name`, its ReplicaSets and pods, in one kubectl call. */
async function objectsOf(kp: Kubeplane, name: string): Promise<{ deployment?: Deployment; rss: ReplicaSet[]; pods: Pod[] }> {
  const items = (await kp.kubectlJson<{ items: Obj[] }>(['get', 'deploy,rs,pods', '-l', `app=${name}`])).items;
  return {
    deployment: items.find((o): o is Deployment => o.kind === 'Deployment'),
    rss: items.filter((o): o is ReplicaSet => o.kind === 'ReplicaSet'),
    pods: items.filter((o): o is Pod => o.kind === 'Pod'),
  };
}

/**
 * The rolled-out state in numbers, compared whole against the expected one: the Deployment's spec and
 * status, the newest ReplicaSet, the old ones (their spec and status replicas summed: 0 once done),
 * ReplicaSets whose controller is not the Deployment, and the pods (all of the newest ReplicaSet,
 * Ready, none terminating).
 */
function rolloutNumbers(d: Deployment | undefined, rss: ReplicaSet[], pods: Pod[]): Record<string, unknown> {
  const newest = rss.reduce<ReplicaSet | undefined>((a, b) => (a && revisionOf(a) > revisionOf(b) ? a : b), undefined);
  const controllerUid = (o: Obj): string | undefined => o.metadata?.ownerReferences?.find((r) => r.controller)?.uid;
  return {
    replicas: d?.spec?.replicas,
    image: d && imageOf(d),
    observed: d?.status?.observedGeneration === d?.metadata?.generation,
    status: [d?.status?.replicas, d?.status?.updatedReplicas, d?.status?.readyReplicas, d?.status?.availableReplicas],
    newest: newest && [imageOf(newest), newest.spec?.replicas, newest.status?.readyReplicas],
    oldReplicas: rss.filter((rs) => rs !== newest).reduce((n, rs) => n + (rs.spec?.replicas ?? 0) + (rs.status?.replicas ?? 0), 0),
    strayReplicaSets: rss.filter((rs) => controllerUid(rs) !== d?.metadata?.uid).length,
    pods: pods.length,
    terminating: pods.filter((p) => p.metadata?.deletionTimestamp).length,
    ready: pods.filter(isReady).length,
    ofNewest: pods.filter((p) => newest && controllerUid(p) === newest.metadata?.uid).length,
  };
}

/** True if `sub` is `seq` with some elements left out (order kept). */
function isSubsequence(sub: string[], seq: readonly string[]): boolean {
  let i = 0;
  for (const s of seq) if (s === sub[i]) i++;
  return i === sub.length;
}

/**
 * Waits for the Deployment to be rolled out to the last acknowledged state, then asserts it exactly:
 * replicas and image, one ReplicaSet per template with revisions 1…m in the order the images were set,
 * no pod but the newest ReplicaSet's, and {@link REPLICAS} pods ever created by it (the most it was
 * ever asked for in every scenario: a scale down only removes pods), and none by anyone else.
 */
async function assertRolledOut(kp: Kubeplane, name: string, ack: Ack, appliedImages: string[]): Promise<void> {
  const replicas = ack.replicas ?? 0;
  const image = ack.image ?? '';
  await kp.kubectlOk(['rollout', 'status', `deploy/${name}`, '--timeout=60s']);
  const expected = {
    replicas,
    image,
    observed: true,
    status: [replicas, replicas, replicas, replicas],
    newest: [image, replicas, replicas],
    oldReplicas: 0,
    strayReplicaSets: 0,
    pods: replicas,
    terminating: 0,
    ready: replicas,
    ofNewest: replicas,
  };
  const { deployment, rss } = await eventually(`${name} rolled out to ${replicas} × ${image}`, async () => {
    const o = await objectsOf(kp, name);
    assert.deepEqual(rolloutNumbers(o.deployment, o.rss, o.pods), expected);
    return o;
  });
  assert.ok((deployment?.metadata?.generation ?? 0) >= (ack.generation ?? 0), `generation ${deployment?.metadata?.generation} went below the acknowledged ${ack.generation}`);
  const byRevision = [...rss].sort((a, b) => revisionOf(a) - revisionOf(b));
  assert.deepEqual(
    byRevision.map(revisionOf),
    byRevision.map((_, i) => i + 1),
    'revisions 1…m, one per ReplicaSet',
  );
  assert.equal(deployment?.metadata?.annotations?.[REVISION], String(rss.length));
  const images = byRevision.map(imageOf);
  assert.ok(images[0] === appliedImages[0] && images.at(-1) === image && isSubsequence(images, appliedImages), `ReplicaSet images ${images.join(', ')} for ${appliedImages.join(', ')}`);
  const created = podsEverCreated(kp.dataDir, name);
  assert.equal(created[byRevision.at(-1)?.metadata?.name ?? ''], REPLICAS, `pods ever created by the newest ReplicaSet: ${JSON.stringify(created)}`);
  assert.deepEqual(Object.keys(created).filter((owner) => !rss.some((rs) => rs.metadata?.name === owner)), [], 'pods created by no ReplicaSet of the Deployment');
}

/** Waits for the deleted Deployment's ReplicaSets and pods to be gone; no pod was created meanwhile. */
async function assertDeleted(kp: Kubeplane, name: string, rsName: string): Promise<void> {
  const get = await kp.kubectl(['get', 'deploy', name]);
  assert.equal(get.stderr.trim(), `Error from server (NotFound): deployments.apps "${name}" not found`, 'the acknowledged delete holds');
  await eventually(`${name}'s ReplicaSets and pods gone`, async () => {
    assert.equal((await kp.kubectlOk(['get', 'deploy,rs,pods', '-l', `app=${name}`, '-o', 'name'])).trim(), '');
    return true;
  });
  assert.deepEqual(podsEverCreated(kp.dataDir, name), { [rsName]: REPLICAS });
}

for (const scenario of SCENARIOS) {
  describe(`crash safety: SIGKILL during a Deployment ${scenario.title}, restart on the same data dir`, () => {
    let kp: Kubeplane;
    let dataDir = '';

    before(async () => {
      kp = await startKubeplane({ nodes: NODES, args: UP_ARGS });
      dataDir = kp.dataDir;
    });
    after(async () => {
      await kp.stop();
      removeDataDir(dataDir);
    });

    killPoints(scenario).forEach((point, i) => {
      const name = `${scenario.title.replace(' ', '-')}-${i + 1}`;
      test(`${name}: killed after step ${point.step}/${scenario.steps.length} and ${point.events} pod events`, async (t) => {
        const setupAck = scenario.setup ? await scenario.setup(kp, name) : {};
        const setupRs = (await objectsOf(kp, name)).rss[0]?.metadata?.name ?? '';
        const from = JSON.parse(await kp.kubectlOk(['get', '--raw', `/api/v1/namespaces/default/pods?labelSelector=app%3D${name}&limit=1`])) as { metadata: { resourceVersion: string } };
        const watch = new PodWatch(kp, name, from.metadata.resourceVersion);
        const acks: Ack[] = [];
        try {
          for (const step of scenario.steps.slice(0, point.step)) acks.push(await step(kp, name, acks.at(-1) ?? setupAck));
          await watch.delivered(point.events);
        } catch (err) {
          watch.stop();
          throw err;
        }
        assert.equal(await kp.kill(), 'SIGKILL');
        const seen = await watch.drained();
        t.diagnostic(stateAtKill(dataDir, name));

        kp = await startKubeplane({ nodes: NODES, dataDir, args: UP_ARGS });
        assertDurable(dataDir, name, acks, seen);
        const last = acks.at(-1)!;
        if (last.deleted) await assertDeleted(kp, name, setupRs);
        else await assertRolledOut(kp, name, last, [...new Set([IMAGES[0], ...acks.map((a) => a.image ?? '')])]);
      });
    });
  });
}
