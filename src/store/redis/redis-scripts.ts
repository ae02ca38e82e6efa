/**
 * The store's Lua scripts and how they are run (ADR 0116): by SHA1 (`EVALSHA`, or `EVALSHA_RO` for the reads, so
 * a read can never write), and sent whole (`EVAL`, `EVAL_RO`), which loads them into that node's cache, only
 * when the server answers NOSCRIPT (a restart, a failover, a node that never ran it, `SCRIPT FLUSH`). A script's first key decides its slot:
 * scope scripts get the scope's base and touch only keys of that hash tag.
 */
import { createHash } from 'node:crypto';
import { LUA_PRELUDE } from './lua/lua-prelude.js';
import {
  LUA_CENSUS,
  LUA_FORGET_SCOPE,
  LUA_LAPSED,
  LUA_LIVE_KEYS,
  LUA_PARENT_RENEWAL,
  LUA_PURGE_KEYS,
  LUA_PURGE_REMAINS,
  LUA_PURGE_TASKS,
  LUA_RECORD_STEP,
  LUA_RENEW_LEASE,
  LUA_TRY_LEAD,
} from './lua/lua-housekeeping.js';
import {
  LUA_CLAIM_PUSH,
  LUA_DELETE_CONFIG,
  LUA_LIST_CONFIGS,
  LUA_PUSH_STATE,
  LUA_PUT_CONFIG,
  LUA_RECORD_PUSH,
} from './lua/lua-push.js';
import {
  LUA_CLAIM_KEY,
  LUA_COMMIT,
  LUA_CREATE,
  LUA_LIST,
  LUA_RELEASE_CLAIM,
  LUA_RELEASE_KEY,
} from './lua/lua-tasks.js';
import type { RedisConnection, RedisReply } from './redis-connection.js';

/** One script: its text, SHA1, and whether it only reads. */
export class RedisScript {
  readonly sha: string;
  constructor(
    readonly name: string,
    readonly body: string,
    readonly readOnly: boolean,
  ) {
    this.sha = createHash('sha1').update(body).digest('hex');
  }

  /** Runs the script with `keys` (the first routes it) and `args`; on NOSCRIPT sends it whole, loading it. */
  async run(conn: RedisConnection, keys: readonly string[], args: readonly string[]): Promise<RedisReply> {
    const command = [
      this.readOnly ? 'EVALSHA_RO' : 'EVALSHA',
      this.sha,
      String(keys.length),
      ...keys,
      ...args,
    ];
    try {
      return await conn.send(command, keys[0]);
    } catch (err) {
      if (!isNoScript(err)) throw err;
      // The script itself, with its keys: routed like EVALSHA (SCRIPT LOAD has no key, and a cluster client may
      // send it to any node), and the node caches it, so the next EVALSHA finds it.
      const evaluate = [this.readOnly ? 'EVAL_RO' : 'EVAL', this.body, ...command.slice(2)];
      return conn.send(evaluate, keys[0]);
    }
  }
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}

const scoped = (name: string, body: string, readOnly = false) =>
  new RedisScript(name, LUA_PRELUDE + body, readOnly);

/** Every script of the store. */
export const SCRIPTS = {
  create: scoped('create', LUA_CREATE),
  claimKey: scoped('claim-key', LUA_CLAIM_KEY),
  commit: scoped('commit', LUA_COMMIT),
  releaseClaim: scoped('release-claim', LUA_RELEASE_CLAIM),
  releaseKey: scoped('release-key', LUA_RELEASE_KEY),
  list: scoped('list', LUA_LIST, true),
  putConfig: scoped('put-config', LUA_PUT_CONFIG),
  deleteConfig: scoped('delete-config', LUA_DELETE_CONFIG),
  listConfigs: scoped('list-configs', LUA_LIST_CONFIGS, true),
  pushState: scoped('push-state', LUA_PUSH_STATE, true),
  claimPush: scoped('claim-push', LUA_CLAIM_PUSH),
  recordPush: scoped('record-push', LUA_RECORD_PUSH),
  renewLease: scoped('renew-lease', LUA_RENEW_LEASE),
  lapsed: scoped('lapsed', LUA_LAPSED, true),
  census: scoped('census', LUA_CENSUS, true),
  recordStep: scoped('record-step', LUA_RECORD_STEP),
  parentRenewal: scoped('parent-renewal', LUA_PARENT_RENEWAL),
  purgeTasks: scoped('purge-tasks', LUA_PURGE_TASKS),
  purgeKeys: scoped('purge-keys', LUA_PURGE_KEYS),
  purgeRemains: scoped('purge-remains', LUA_PURGE_REMAINS, true),
  liveKeys: scoped('live-keys', LUA_LIVE_KEYS, true),
  tryLead: new RedisScript('try-lead', LUA_TRY_LEAD, false),
  forgetScope: new RedisScript('forget-scope', LUA_FORGET_SCOPE, false),
} as const;
