// Lease-based leader election (coordination.k8s.io/v1), after client-go's leaderelection: every
// retry period a candidate reads the Lease; it takes it when it is free, released, or expired,
// and the leader renews it. Expiry is judged by the local clock from when this candidate last
// saw the record change (never by comparing the holder's timestamps with ours, so clock skew
// between nodes cannot hand out the lease twice). Writes are optimistic (resourceVersion), so
// two candidates racing for an expired lease cannot both win. A leader that fails to renew
// within the renew deadline (shorter than the lease duration) steps down before anyone else
// may take over; `stop()` deletes the Lease it holds (conditional on its version, so a Lease
// someone else took meanwhile stays), so a successor need not wait for expiry and nothing is
// left behind when the last replica goes. The Lease is owned by the operator's Deployment when
// known, so a leader that dies without releasing it still leaves nothing after an uninstall.
import type { KubeClient } from './client.js';
import { systemClock, type Clock, type TimerHandle } from './clock.js';
import { isAlreadyExists, isConflict, type Lease, type OwnerReference } from './types.js';

export interface LeaderElectionOptions {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  readonly clock?: Clock;
  /** Owner of the Lease it creates (the operator's Deployment). */
  readonly owner?: OwnerReference;
  readonly onStartedLeading: () => void;
  /** Called when leadership is lost or released; the caller must stop reconciling. */
  readonly onStoppedLeading: () => void | Promise<void>;
  readonly onError?: (error: unknown) => void;
}

/** Kubernetes MicroTime: RFC 3339 with exactly six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class LeaderElector {
  readonly #options: LeaderElectionOptions;
  readonly #clock: Clock;
  readonly #leaseDurationMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  #leader = false;
  #running = false;
  #timer: TimerHandle | undefined;
  #observed = '';
  #observedAt = 0;
  #lastRenewAt = 0;
  #tick: Promise<void> = Promise.resolve();
  #currentHolder = '';

  constructor(options: LeaderElectionOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.#renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.#retryPeriodMs = options.retryPeriodMs ?? 2_000;
    if (this.#renewDeadlineMs >= this.#leaseDurationMs) throw new Error('leader election: renew deadline must be shorter than the lease duration');
    if (this.#retryPeriodMs >= this.#renewDeadlineMs) throw new Error('leader election: retry period must be shorter than the renew deadline');
  }

  get isLeader(): boolean {
    return this.#leader;
  }

  /** The holder this candidate last observed ('' when none). */
  get holder(): string {
    return this.#currentHolder;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule(0);
  }

  /** Stop campaigning; a leader steps down first, then releases the lease. */
  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#tick;
    if (!this.#leader) return;
    await this.#stepDown();
    await this.#release();
  }

  /** Run one election round now (tests drive rounds through the clock or directly). */
  round(): Promise<void> {
    this.#tick = this.#tick.then(() => this.#round());
    return this.#tick;
  }

  #schedule(delayMs: number): void {
    if (!this.#running) return;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      void this.round().then(() => this.#schedule(this.#retryPeriodMs));
    }, delayMs);
  }

  async #round(): Promise<void> {
    if (!this.#running) return;
    const acquired = await this.#tryAcquireOrRenew().catch((error: unknown) => {
      this.#options.onError?.(error);
      return false;
    });
    const now = this.#clock.now();
    if (acquired && !this.#running) {
      // stop() was called while this round took the lease: give it back, never hold it unseen.
      await this.#release();
      return;
    }
    if (acquired) {
      this.#lastRenewAt = now;
      if (!this.#leader && this.#running) {
        this.#leader = true;
        this.#options.onStartedLeading();
      }
      return;
    }
    if (this.#leader && (this.#currentHolder !== this.#options.identity || now - this.#lastRenewAt >= this.#renewDeadlineMs)) {
      await this.#stepDown();
    }
  }

  async #stepDown(): Promise<void> {
    if (!this.#leader) return;
    this.#leader = false;
    await this.#options.onStoppedLeading();
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const { client, namespace, name, identity } = this.#options;
    const now = this.#clock.now();
    const durationSeconds = Math.max(1, Math.ceil(this.#leaseDurationMs / 1000));
    const lease = await client.get<Lease>('Lease', namespace, name);
    if (lease === undefined) {
      try {
        await client.create<Lease>('Lease', {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace, ...(this.#options.owner === undefined ? {} : { ownerReferences: [this.#options.owner] }) },
          spec: { holderIdentity: identity, leaseDurationSeconds: durationSeconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
        });
        this.#currentHolder = identity;
        return true;
      } catch (error) {
        if (isAlreadyExists(error)) return false;
        throw error;
      }
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const record = JSON.stringify([holder, spec.renewTime ?? '', spec.leaseTransitions ?? 0, spec.leaseDurationSeconds ?? 0]);
    if (record !== this.#observed) {
      this.#observed = record;
      this.#observedAt = now;
    }
    this.#currentHolder = holder;
    const heldMs = (spec.leaseDurationSeconds ?? 0) * 1000;
    if (holder !== '' && holder !== identity && this.#observedAt + heldMs > now) return false;
    const ours = holder === identity;
    const next: Lease = {
      ...lease,
      spec: {
        ...spec,
        holderIdentity: identity,
        leaseDurationSeconds: durationSeconds,
        acquireTime: ours && spec.acquireTime != null ? spec.acquireTime : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: ours ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
      },
    };
    try {
      const written = await client.replace<Lease>('Lease', next);
      this.#observed = JSON.stringify([identity, written.spec?.renewTime ?? '', written.spec?.leaseTransitions ?? 0, written.spec?.leaseDurationSeconds ?? 0]);
      this.#observedAt = now;
      this.#currentHolder = identity;
      return true;
    } catch (error) {
      if (isConflict(error)) return false;
      throw error;
    }
  }

  async #release(): Promise<void> {
    const { client, namespace, name, identity } = this.#options;
    try {
      const lease = await client.get<Lease>('Lease', namespace, name);
      if (lease?.spec?.holderIdentity !== identity) return;
      await client.delete('Lease', namespace, name, { ...(lease.metadata.uid === undefined ? {} : { uid: lease.metadata.uid }), ...(lease.metadata.resourceVersion === undefined ? {} : { resourceVersion: lease.metadata.resourceVersion }) });
      this.#currentHolder = '';
    } catch (error) {
      // 409: someone renewed or took it in between, and it is theirs now. Otherwise the lease
      // expires on its own; a failed release only delays the successor.
      if (!isConflict(error)) this.#options.onError?.(error);
    }
  }
}
