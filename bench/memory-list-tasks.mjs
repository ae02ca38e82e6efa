// ListTasks over the in-memory store with many tasks in one scope, and what keeping tasks listable costs on the
// send path (a keyed create + two commits per task). Runs the built code in dist/: build first.
//
//   node bench/memory-list-tasks.mjs [--tasks 100000] [--seconds 1]
//
// Every figure is the median of repeated calls within `--seconds` per case (at least 5 calls, at most 2,000).
// The tasks: status timestamps one millisecond apart, 80% COMPLETED, 15% WORKING, 5% INPUT_REQUIRED, one
// context per 10 tasks. Figures to read, not tests: nothing here asserts a time.
import { parseArgs } from 'node:util';
import { ManualClock } from '../dist/store/clock.js';
import { MemoryTaskStore } from '../dist/store/memory/index.js';
import { encodePageToken } from '../dist/store/page-token.js';

const { values } = parseArgs({
  options: { tasks: { type: 'string', default: '100000' }, seconds: { type: 'string', default: '1' } },
});
const N = Number(values.tasks);
const SECONDS = Number(values.seconds);
const scope = { tenant: 'bench', owner: '' };
const start = Date.UTC(2026, 0, 1);
const clock = new ManualClock(start);
const store = new MemoryTaskStore({
  clock,
  maxTasks: N * 2,
  terminalTaskTtlMs: Number.MAX_SAFE_INTEGER,
});

const iso = (ms) => new Date(ms).toISOString();
const stateOf = (i) =>
  i % 20 === 0 ? 'TASK_STATE_INPUT_REQUIRED' : i % 20 < 4 ? 'TASK_STATE_WORKING' : 'TASK_STATE_COMPLETED';
const idOf = (i) => `task-${String(i).padStart(8, '0')}`;

// Filling the store is the send path: one create and two fenced commits per task, as an echo send makes.
const fillStart = process.hrtime.bigint();
for (let i = 0; i < N; i++) {
  clock.advance(1);
  const id = idOf(i);
  const task = {
    id,
    contextId: `ctx-${Math.floor(i / 10)}`,
    status: { state: 'TASK_STATE_SUBMITTED', timestamp: iso(clock.now()) },
    history: [{ messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] }],
  };
  // Keyed, as a send with an idempotency key claims one (the digest deferred, as the server defers it).
  const claim = {
    key: `bench-key-${i}-0000000000`,
    messageId: `m-${i}`,
    digest: () => 'd',
    expiresAt: clock.now() + 86_400_000,
  };
  await store.createTask(scope, { task, claim });
  const working = { ...task, status: { state: 'TASK_STATE_WORKING', timestamp: iso(clock.now()) } };
  await store.commit(scope, id, {
    expectFence: 1,
    task: working,
    events: [{ statusUpdate: { taskId: id, contextId: task.contextId, status: working.status } }],
  });
  const final = { ...task, status: { state: stateOf(i), timestamp: iso(clock.now()) } };
  await store.commit(scope, id, {
    expectFence: 1,
    task: final,
    events: [{ statusUpdate: { taskId: id, contextId: task.contextId, status: final.status } }],
  });
}
const fillUs = Number(process.hrtime.bigint() - fillStart) / 1000 / N;

async function median(fn) {
  const times = [];
  const until = performance.now() + SECONDS * 1000;
  while (times.length < 5 || (performance.now() < until && times.length < 2000)) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)], calls: times.length };
}

// The middle task's position: a cursor halfway down the list (its status timestamp is its last commit's).
const mid = Math.floor(N / 2);
const midToken = encodePageToken({ timestamp: iso(start + mid + 1), id: idOf(mid) });
const cases = [
  ['first page, no filter', { pageSize: 50 }],
  ['page from the middle (cursor)', { pageSize: 50, pageToken: midToken }],
  ['status WORKING, first page', { pageSize: 50, status: 'TASK_STATE_WORKING' }],
  [
    'status INPUT_REQUIRED, from the middle',
    { pageSize: 50, status: 'TASK_STATE_INPUT_REQUIRED', pageToken: midToken },
  ],
  ['contextId (10 tasks)', { pageSize: 50, contextId: `ctx-${Math.floor(mid / 10)}` }],
  [
    'statusTimestampAfter (newest 10%)',
    { pageSize: 50, statusTimestampAfter: iso(start + Math.floor(N * 0.9)) },
  ],
];

console.log(
  `# ListTasks, in-memory store, ${N.toLocaleString('en')} tasks in one scope (node ${process.version})`,
);
console.log(`fill: ${fillUs.toFixed(2)} µs per task (keyed create + 2 commits, single thread, in process)`);
console.log('');
console.log('| query | median per call | totalSize | page | calls |');
console.log('|---|---|---|---|---|');
for (const [name, query] of cases) {
  const page = await store.listTasks(scope, query);
  const { ms, calls } = await median(() => store.listTasks(scope, query));
  const per = ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(1)} µs`;
  console.log(`| ${name} | ${per} | ${page.totalSize} | ${page.records.length} | ${calls} |`);
}
