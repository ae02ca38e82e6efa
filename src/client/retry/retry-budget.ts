/**
 * A retry budget shared by every call of one client (docs/semantics.md §7), in the style of gRPC's retry throttling:
 * a bucket of tokens, one taken per failed attempt, a fraction given back per success, and retries allowed only
 * while the bucket is more than half full. When a peer is down, a crowd of callers stops multiplying its load by
 * the attempt count, yet a healthy peer's occasional failure is always retried.
 */

/** Budget settings. */
export interface RetryBudgetOptions {
  /** Bucket size. Default 20. */
  readonly maxTokens?: number;
  /** Tokens returned per successful attempt. Default 0.2 (five successes repay one failure). */
  readonly tokenRatio?: number;
}

/** A token bucket that gates retries. */
export class RetryBudget {
  private tokens: number;
  /** Bucket size. */
  readonly maxTokens: number;
  /** Tokens returned per success. */
  readonly tokenRatio: number;

  constructor(options: RetryBudgetOptions = {}) {
    this.maxTokens = Math.max(1, options.maxTokens ?? 20);
    this.tokenRatio = Math.max(0, options.tokenRatio ?? 0.2);
    this.tokens = this.maxTokens;
  }

  /** Tokens currently in the bucket. */
  get available(): number {
    return this.tokens;
  }

  /** Records a failed attempt (any retryable failure). */
  onFailure(): void {
    this.tokens = Math.max(0, this.tokens - 1);
  }

  /** Records an attempt that got a definite answer. */
  onSuccess(): void {
    this.tokens = Math.min(this.maxTokens, this.tokens + this.tokenRatio);
  }

  /** Whether a retry may be made now. */
  canRetry(): boolean {
    return this.tokens > this.maxTokens / 2;
  }
}
