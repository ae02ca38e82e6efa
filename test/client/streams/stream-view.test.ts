import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamView } from '../../../src/client/streams/stream-view.js';
import type { Part, StreamResponse, Task, TaskStatus } from '../../../src/protocol/model.js';

const T = 'task-1';
const C = 'ctx-1';

/** What a caller reconstructs from the events it was shown. */
interface Seen {
  status: TaskStatus | undefined;
  artifacts: Map<string, Part[]>;
}

function apply(seen: Seen, ev: StreamResponse): void {
  if ('task' in ev) {
    seen.status = ev.task.status;
    for (const a of ev.task.artifacts ?? []) seen.artifacts.set(a.artifactId, [...a.parts]);
  } else if ('statusUpdate' in ev) {
    seen.status = ev.statusUpdate.status;
  } else if ('artifactUpdate' in ev) {
    const a = ev.artifactUpdate.artifact;
    const prev = seen.artifacts.get(a.artifactId);
    seen.artifacts.set(a.artifactId, ev.artifactUpdate.append && prev ? [...prev, ...a.parts] : [...a.parts]);
  }
}

function snapshotAfter(events: StreamResponse[]): Task {
  const s: Seen = { status: undefined, artifacts: new Map() };
  for (const e of events) apply(s, e);
  return {
    id: T,
    contextId: C,
    status: s.status!,
    artifacts: [...s.artifacts].map(([artifactId, parts]) => ({ artifactId, parts })),
  };
}

const status = (state: TaskStatus['state'], n: number): StreamResponse => ({
  statusUpdate: {
    taskId: T,
    contextId: C,
    status: { state, timestamp: new Date(1_700_000_000_000 + n).toISOString() },
  },
});

/**
 * A task lifecycle: the task, then working updates and artifact chunks, then COMPLETED. With `repeating`, chunks
 * come from a tiny alphabet (tokens, newlines, repeated data) and every WORKING status is the same, so equal
 * content says nothing about position.
 */
const lifecycleOf = (repeating: boolean): fc.Arbitrary<StreamResponse[]> =>
  fc
    .array(
      fc.oneof(
        fc.record({ kind: fc.constant('status' as const) }),
        fc.record({
          kind: fc.constant('chunk' as const),
          artifact: fc.constantFrom('a', 'b'),
          text: repeating ? fc.constantFrom('x', '\n', 'ab') : fc.string({ maxLength: 3 }),
        }),
      ),
      { maxLength: 12 },
    )
    .map((steps) => {
      const events: StreamResponse[] = [
        { task: { id: T, contextId: C, status: { state: 'TASK_STATE_SUBMITTED' } } },
      ];
      const started = new Set<string>();
      steps.forEach((s, i) => {
        if (s.kind === 'status') events.push(status('TASK_STATE_WORKING', repeating ? 0 : i));
        else {
          const append = started.has(s.artifact);
          started.add(s.artifact);
          events.push({
            artifactUpdate: {
              taskId: T,
              contextId: C,
              append,
              artifact: {
                artifactId: s.artifact,
                parts: [{ text: repeating ? s.text : `${s.text}#${i}` }],
              },
            },
          });
        }
      });
      events.push(status('TASK_STATE_COMPLETED', 999));
      return events;
    });

describe('StreamView', () => {
  it.each([
    ['distinct', false],
    ['repeating', true],
  ])('after a cut at any point, snapshot + live events end in the true state (%s chunks)', (_, repeating) => {
    fc.assert(
      fc.property(lifecycleOf(repeating), fc.nat(), fc.nat(), (events, cutAt, gap) => {
        const k = cutAt % (events.length + 1); // events the caller saw before the cut
        const j = Math.min(events.length, k + (gap % 3)); // events the server had produced at re-attach
        const view = new StreamView();
        const seen: Seen = { status: undefined, artifacts: new Map() };
        for (const e of events.slice(0, k)) for (const o of view.accept(e)) apply(seen, o);
        const tail: StreamResponse[] = [
          { task: snapshotAfter(events.slice(0, Math.max(j, 1))) },
          ...events.slice(Math.max(j, 1)),
        ];
        tail.forEach((e, i) => {
          for (const o of i === 0 ? view.resync(e) : view.accept(e)) apply(seen, o);
        });
        const truth = snapshotAfter(events);
        expect(seen.status).toEqual(truth.status);
        expect(Object.fromEntries(seen.artifacts)).toEqual(
          Object.fromEntries((truth.artifacts ?? []).map((a) => [a.artifactId, a.parts])),
        );
        expect(view.ended).toBe(true);
      }),
    );
  });

  it('yields nothing from a snapshot the caller has fully seen', () => {
    const view = new StreamView();
    const events: StreamResponse[] = [
      { task: { id: T, contextId: C, status: { state: 'TASK_STATE_SUBMITTED' } } },
      { artifactUpdate: { taskId: T, contextId: C, artifact: { artifactId: 'a', parts: [{ text: 'x' }] } } },
      status('TASK_STATE_WORKING', 1),
    ];
    for (const e of events) view.accept(e);
    expect(view.resync({ task: snapshotAfter(events) })).toEqual([]);
    expect(view.ended).toBe(false);
  });

  it('turns unseen chunks of a seen artifact into one append update', () => {
    const view = new StreamView();
    view.accept({ task: { id: T, contextId: C, status: { state: 'TASK_STATE_WORKING' } } });
    view.accept({
      artifactUpdate: { taskId: T, contextId: C, artifact: { artifactId: 'a', parts: [{ text: '1' }] } },
    });
    const out = view.resync({
      task: {
        id: T,
        contextId: C,
        status: { state: 'TASK_STATE_WORKING' },
        artifacts: [{ artifactId: 'a', parts: [{ text: '1' }, { text: '2' }] }],
      },
    });
    expect(out).toEqual([
      {
        artifactUpdate: {
          taskId: T,
          contextId: C,
          append: true,
          artifact: { artifactId: 'a', parts: [{ text: '2' }] },
        },
      },
    ]);
  });

  it('shows the snapshot as the first event when the cut came before any event', () => {
    const view = new StreamView();
    const snap: StreamResponse = { task: { id: T, contextId: C, status: { state: 'TASK_STATE_COMPLETED' } } };
    expect(view.resync(snap)).toEqual([snap]);
    expect(view.ended).toBe(true);
    expect(view.taskId).toBe(T);
  });

  it('ends at INPUT_REQUIRED and after a message, not at AUTH_REQUIRED', () => {
    const a = new StreamView();
    a.accept(status('TASK_STATE_AUTH_REQUIRED', 1));
    expect(a.ended).toBe(false);
    a.accept(status('TASK_STATE_INPUT_REQUIRED', 2));
    expect(a.ended).toBe(true);
    const b = new StreamView();
    b.accept({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } });
    expect(b.ended).toBe(true);
    expect(b.accept({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } })).toEqual(
      [],
    );
  });
});

describe('StreamView without a cut', () => {
  it('shows every live event, a repeated identical status and a repeated identical chunk included', () => {
    const view = new StreamView();
    const working = status('TASK_STATE_WORKING', 0);
    const chunk = (append: boolean): StreamResponse => ({
      artifactUpdate: {
        taskId: T,
        contextId: C,
        append,
        artifact: { artifactId: 'a', parts: [{ text: 'x' }] },
      },
    });
    const replace: StreamResponse = {
      artifactUpdate: { taskId: T, contextId: C, artifact: { artifactId: 'a', parts: [{ text: 'x' }] } },
    };
    const events: StreamResponse[] = [
      { task: { id: T, contextId: C, status: { state: 'TASK_STATE_SUBMITTED' } } },
      working,
      working,
      chunk(false),
      chunk(true),
      chunk(true),
      replace,
      replace,
      status('TASK_STATE_COMPLETED', 1),
    ];
    const shown = events.flatMap((e) => view.accept(e));
    expect(shown).toEqual(events);
    expect(view.ended).toBe(true);
  });

  it('after a re-attached snapshot, live appends equal to the tail are shown, not taken for repeats', () => {
    const view = new StreamView();
    const seen: Seen = { status: undefined, artifacts: new Map() };
    const x: StreamResponse = {
      artifactUpdate: {
        taskId: T,
        contextId: C,
        append: true,
        artifact: { artifactId: 'a', parts: [{ text: 'x' }] },
      },
    };
    const first: StreamResponse = {
      artifactUpdate: { taskId: T, contextId: C, artifact: { artifactId: 'a', parts: [{ text: 'x' }] } },
    };
    for (const e of [{ task: { id: T, contextId: C, status: { state: 'TASK_STATE_WORKING' } } }, first, x])
      for (const o of view.accept(e as StreamResponse)) apply(seen, o);
    // Cut; the snapshot has the two chunks seen, then four more identical ones arrive live.
    const snap = snapshotAfter([
      { task: { id: T, contextId: C, status: { state: 'TASK_STATE_WORKING' } } },
      first,
      x,
    ]);
    for (const o of view.resync({ task: snap })) apply(seen, o);
    for (const e of [x, x, x, x, status('TASK_STATE_COMPLETED', 1)])
      for (const o of view.accept(e)) apply(seen, o);
    expect(seen.artifacts.get('a')).toEqual(Array.from({ length: 6 }, () => ({ text: 'x' })));
    expect(seen.status?.state).toBe('TASK_STATE_COMPLETED');
  });
});
