/**
 * One end of a resumable line stream, for a link that may drop (an SSH channel): every message it
 * sends is numbered and kept until the other end says it has it; when a new stream is attached,
 * each end says how far it has read and the other sends again only what came after. So every
 * message crosses exactly once, in order, however often the stream is replaced.
 *
 * On the wire, one JSON object per line:
 * - `{"hello": {"session", "received", "fresh"?}}` first, from each end on each new stream;
 * - `{"s": n, "a": k, "m": message}` a message numbered n, with the sender's "I have read up to k";
 * - `{"a": k}` that alone (sent shortly after reading, when nothing else is going out).
 * A line that is not one of these is dropped.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { z } from 'zod';

const hello = z.object({ hello: z.object({ session: z.string(), received: z.number(), fresh: z.boolean().optional() }) });
const numbered = z.object({ s: z.number(), a: z.number(), m: z.unknown() });
const ack = z.object({ a: z.number() });

/** How soon an acknowledgement goes out alone when nothing else does. */
const ACK_DELAY_MS = 100;

/** What the other end said when a stream was attached. */
export type Greeting = { session: string; received: number; fresh: boolean };

/** One end of the link. */
export class ResumableEnd {
  /** Sent and not yet acknowledged, oldest first. */
  private readonly unacknowledged: Array<{ seq: number; line: string }> = [];
  private nextSeq = 1;
  private received = 0;
  private output: Writable | undefined;
  private ackTimer: NodeJS.Timeout | undefined;
  /** Ends the current stream's reading (a replaced stream is read no more). */
  private detachCurrent: (() => void) | undefined;

  constructor(private readonly onMessage: (message: unknown) => void) {}

  /** Messages kept for the other end (sent or waiting for a stream, not yet acknowledged). */
  get pending(): number {
    return this.unacknowledged.length;
  }

  /** Forgets every number: a fresh start with an end that knows nothing of this one. */
  reset(): void {
    this.unacknowledged.length = 0;
    this.nextSeq = 1;
    this.received = 0;
  }

  /** Sends (or keeps, while no stream is attached) one message. */
  send(message: unknown): void {
    const seq = this.nextSeq++;
    const line = JSON.stringify({ s: seq, a: this.received, m: message });
    this.unacknowledged.push({ seq, line });
    this.output?.write(`${line}\n`);
  }

  /**
   * Attaches a new stream: says hello, waits for the other end's, then sends again what it has not
   * read and goes on. `answer(theirs)` decides this end's own hello once the other's is read (the
   * server says whether it started fresh); the client speaks first with `first`.
   */
  attach(
    input: Readable,
    output: Writable,
    greeting: { first?: { session: string; fresh?: boolean }; answer?: (theirs: Greeting) => { session: string; fresh: boolean } },
  ): Promise<Greeting> {
    this.detach();
    const lines = createInterface({ input, crlfDelay: Infinity });
    let greeted = false;
    return new Promise<Greeting>((resolve, reject) => {
      const onClose = (): void => {
        if (!greeted) {
          reject(new Error('the stream ended before the other end said hello'));
        }
        if (this.output === output) {
          this.output = undefined;
        }
      };
      lines.once('close', onClose);
      this.detachCurrent = () => {
        lines.removeAllListeners('line');
        lines.close();
        if (this.output === output) {
          this.output = undefined;
        }
      };
      if (greeting.first) {
        output.write(`${JSON.stringify({ hello: { ...greeting.first, received: this.received } })}\n`);
      }
      lines.on('line', (line) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          return;
        }
        if (!greeted) {
          const theirs = hello.safeParse(parsed);
          if (!theirs.success) {
            return;
          }
          greeted = true;
          const said: Greeting = { ...theirs.data.hello, fresh: theirs.data.hello.fresh ?? false };
          if (greeting.answer) {
            const mine = greeting.answer(said);
            if (mine.fresh) {
              this.reset();
            }
            output.write(`${JSON.stringify({ hello: { ...mine, received: this.received } })}\n`);
          }
          if (said.fresh && greeting.first) {
            // The other end starts anew: nothing kept for it belongs to its new session.
            this.reset();
          } else {
            this.acknowledged(said.received);
          }
          this.output = output;
          // What the other end has not read, again, in order.
          for (const { line: kept } of this.unacknowledged) {
            output.write(`${kept}\n`);
          }
          resolve(said);
          return;
        }
        this.read(parsed);
      });
    });
  }

  /** Stops reading and writing the current stream (messages are kept for the next). */
  detach(): void {
    this.detachCurrent?.();
    this.detachCurrent = undefined;
    this.output = undefined;
    clearTimeout(this.ackTimer);
  }

  private read(parsed: unknown): void {
    const message = numbered.safeParse(parsed);
    if (message.success) {
      this.acknowledged(message.data.a);
      if (message.data.s !== this.received + 1) {
        // Already read (sent again after a resume), or out of order: dropped.
        return;
      }
      this.received = message.data.s;
      this.scheduleAck();
      this.onMessage(message.data.m);
      return;
    }
    const alone = ack.safeParse(parsed);
    if (alone.success) {
      this.acknowledged(alone.data.a);
    }
  }

  private acknowledged(upTo: number): void {
    let drop = 0;
    while (drop < this.unacknowledged.length && this.unacknowledged[drop]!.seq <= upTo) {
      drop += 1;
    }
    this.unacknowledged.splice(0, drop);
  }

  private scheduleAck(): void {
    if (this.ackTimer === undefined) {
      this.ackTimer = setTimeout(() => {
        this.ackTimer = undefined;
        this.output?.write(`${JSON.stringify({ a: this.received })}\n`);
      }, ACK_DELAY_MS);
      this.ackTimer.unref();
    }
  }
}
