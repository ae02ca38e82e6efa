/**
 * THE store contract suite: one set of tests that every backend (memory, SQLite, PostgreSQL) runs unchanged.
 * Each backend's `*.test.ts` calls `describeTaskStoreContract` with a factory of fresh, empty stores.
 */
import { describe } from 'vitest';
import { abandonContract } from './contract-abandon.js';
import { claimKeyContract } from './contract-claim-key.js';
import { commitContract } from './contract-commit.js';
import { keyContract } from './contract-keys.js';
import { leadContract } from './contract-lead.js';
import { leaseContract } from './contract-leases.js';
import { listContract } from './contract-list.js';
import { lostAnswerContract } from './contract-lost-answers.js';
import { nextRecordContract } from './contract-next-record.js';
import { parentRenewalContract } from './contract-parent-renewal.js';
import { purgeContract } from './contract-purge.js';
import { pushClaimContract } from './contract-push-claims.js';
import { pushDeliveryContract } from './contract-push-delivery.js';
import { pushFencingContract } from './contract-push-fencing.js';
import { raceContract } from './contract-races.js';
import { releaseContract } from './contract-release.js';
import { stepContract } from './contract-steps.js';
import { stepAttemptContract } from './contract-step-attempts.js';
import { tombstoneAgeContract } from './contract-tombstone-age.js';
import { watchContract } from './contract-watch.js';
import type { MakeStore } from './harness.js';

export type { MakeStore, StoreHarness } from './harness.js';

/** Registers the whole contract suite for one backend. */
export function describeTaskStoreContract(name: string, makeStore: MakeStore): void {
  describe(`TaskStore contract: ${name}`, () => {
    describe('keys', () => keyContract(makeStore));
    describe('releaseClaim', () => releaseContract(makeStore));
    describe('claimKey', () => claimKeyContract(makeStore));
    describe('commit', () => commitContract(makeStore));
    describe('list', () => listContract(makeStore));
    describe('watch', () => watchContract(makeStore));
    describe('nextRecord', () => nextRecordContract(makeStore));
    describe('purge', () => purgeContract(makeStore));
    describe('tombstone age', () => tombstoneAgeContract(makeStore));
    describe('abandoned tasks', () => abandonContract(makeStore));
    describe('leadership', () => leadContract(makeStore));
    describe('worker leases', () => leaseContract(makeStore));
    describe('durable steps', () => stepContract(makeStore));
    describe('durable step attempts', () => stepAttemptContract(makeStore));
    describe('delegation lease renewals', () => parentRenewalContract(makeStore));
    describe('push delivery', () => pushDeliveryContract(makeStore));
    describe('push delivery claims', () => pushClaimContract(makeStore));
    describe('push claim fencing and lost answers', () => pushFencingContract(makeStore));
    describe('races', () => raceContract(makeStore));
    describe('lost answers', () => lostAnswerContract(makeStore));
  });
}
