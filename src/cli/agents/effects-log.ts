/**
 * A side-effect witness for the demo agents: one JSON line per agent execution, written synchronously when the
 * execution starts. "Every send runs once" is checked from outside the server (another process, a test) by
 * counting lines, so the write must land before the agent can be cancelled or the process killed.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AgentContext } from '../../server/agent-executor.js';

/** One recorded execution. */
export interface EffectRecord {
  readonly taskId: string;
  readonly messageId: string;
  /** The user message text of that turn. */
  readonly text: string;
  /** The side-effect key of the durable step that made the effect, when one did (ADR 0038). */
  readonly key?: string;
}

/** Appends one line per agent execution to a file. */
export class EffectsLog {
  /** @param path the file to append to; its directory is created when missing. */
  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
  }

  /**
   * Records the turn `ctx` is running (call first thing in `execute`, on every turn), or, with `key`, the effect
   * of the durable step whose side-effect key it is (call it from inside `ctx.step`).
   */
  record(ctx: Pick<AgentContext, 'taskId' | 'message' | 'userText'>, key?: string): void {
    const line: EffectRecord =
      key === undefined
        ? { taskId: ctx.taskId, messageId: ctx.message.messageId, text: ctx.userText }
        : { taskId: ctx.taskId, messageId: ctx.message.messageId, text: ctx.userText, key };
    // Synchronous on purpose: the line exists before any awaited work, whatever happens to the turn later.
    appendFileSync(this.path, JSON.stringify(line) + '\n');
  }
}

/** Every execution recorded in the file at `path` ([] when the file does not exist yet). */
export function readEffects(path: string): EffectRecord[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as EffectRecord);
}

/** How many executions the file at `path` records. */
export function countEffects(path: string): number {
  return readEffects(path).length;
}
