/**
 * Keeps watch deliveries behind the writes they report. etcd answers a write and sends its watch event
 * on different gRPC streams, in either order; the Backend contract wants a handler to run only after
 * the write that took the revision it carries has resolved.
 *
 * The rule: a watch response that arrives while writes W1…Wn of this backend are unanswered waits
 * until all of them are answered. Any write of this backend with a revision at or below the response's
 * was applied by etcd before the response was sent, so it is among W1…Wn or already answered; a write
 * sent after the response arrived was applied later and has a higher revision. So each response waits
 * for at most the writes in flight when it came, and a steady stream of writes cannot hold it back
 * for ever.
 *
 * Example: writes 1, 2 and 3 are sent; the event of write 2's revision arrives while 1 and 3 are in
 * flight, so it waits for sequence number 3; write 4 is sent; answers for 1 and 3 arrive: every write up
 * to 3 is answered and the event is delivered, though write 4 still waits.
 */

import { Fifo } from '../../util/fifo/index.js';

/** Sequence numbers of this backend's writes, and the waiters for all writes up to a number. */
export class WriteOrder {
  private issued = 0;
  /** Unanswered writes; a Set keeps insertion order, so its first element is the lowest. */
  private readonly pending = new Set<number>();
  /** In ascending `upTo` order: each waits for {@link lastIssued}, which only grows. */
  private readonly waiters = new Fifo<{ upTo: number; resolve: () => void }>();

  /** Records a write about to be sent; returns its sequence number for {@link end}. */
  begin(): number {
    this.issued++;
    this.pending.add(this.issued);
    return this.issued;
  }

  /** Records that write `seq` was answered (or failed), releasing what waited for it. */
  end(seq: number): void {
    this.pending.delete(seq);
    for (let w = this.waiters.peek(); w && this.answeredUpTo(w.upTo); w = this.waiters.peek()) {
      this.waiters.shift();
      w.resolve();
    }
  }

  /** The sequence number of the last write sent: what a response arriving now must wait for. */
  get lastIssued(): number {
    return this.issued;
  }

  /** True once every write with a sequence number at or below `upTo` has been answered. */
  answeredUpTo(upTo: number): boolean {
    const lowest = this.pending.values().next();
    return lowest.done === true || lowest.value > upTo;
  }

  /** Resolves once every write up to `upTo` has been answered. */
  whenAnswered(upTo: number): Promise<void> {
    if (this.answeredUpTo(upTo)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ upTo, resolve }));
  }

  /** Resolves once every write sent so far has been answered (for flush). */
  whenAllAnswered(): Promise<void> {
    return this.whenAnswered(this.issued);
  }
}
