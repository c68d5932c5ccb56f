/** A bounded tail of a byte stream: keeps the last `limit` bytes (an agent's stderr, for error reports). */
export class ByteRing {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  /** Adds bytes, dropping the oldest beyond the limit. */
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit && this.chunks.length > 0) {
      const first = this.chunks[0]!;
      const excess = this.size - this.limit;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  /** The kept bytes as text. */
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }

  /** The last `count` non-empty lines. */
  lastLines(count: number): string {
    return this.text()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .slice(-count)
      .join('\n');
  }
}
