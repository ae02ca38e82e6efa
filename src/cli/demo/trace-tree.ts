/**
 * `demo --trace`: the tree of one trace, the a2a-once run's root send, from the span files the demo's processes
 * wrote (ADR 0096). One line per span, indented like the demo's tree: its name, the service (which server, or the
 * caller), SERVER or CLIENT for an A2A call (a service both serves sends and makes them), the admission outcome of a send (claimed, replayed), a step's name and outcome (a leaf's ledger post is
 * its effect), and its duration. A turn's store commits and a delegation's GetTask polls of its child are one count
 * on the parent's line, not a line (or a subtree) each: they are many and say nothing about admission.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ATTR, SPAN } from '../../telemetry/attributes.js';
import { LEDGER_POST_STEP } from '../agents/index.js';
import type { SpanRecord } from '../../otel/span-file.js';
import { nodeById, TREE } from './topology.js';

/** The service of the demo's own client, the caller; each node's service is its id. */
export const CALLER_SERVICE = 'caller';

/** The span file of a service (a node id, or `caller`). */
export function spanFile(dir: string, service: string): string {
  return join(dir, `trace-${service}.spans.jsonl`);
}

/** A span with the service that wrote it. */
export interface ServiceSpan extends SpanRecord {
  readonly service: string;
}

/** Every span the caller and the nodes wrote in `dir`. Lines that do not parse are skipped. */
export function readSpans(dir: string): ServiceSpan[] {
  const services = [CALLER_SERVICE, ...TREE.map((n) => n.id)];
  const out: ServiceSpan[] = [];
  for (const service of services) {
    const file = spanFile(dir, service);
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      try {
        out.push({ ...(JSON.parse(line) as SpanRecord), service });
      } catch {
        // A line cut short by a SIGKILL mid-write: the span is lost, the others stand.
      }
    }
  }
  return out;
}

/** The caller's root send: its SendMessage span with no parent. */
export function rootSend(spans: readonly ServiceSpan[]): ServiceSpan | undefined {
  return spans.find(
    (s) =>
      s.service === CALLER_SERVICE &&
      s.parentSpanId === undefined &&
      s.kind === 'CLIENT' &&
      s.name === 'SendMessage',
  );
}

/** `orchestrator`, `leaf A1`, or `caller`. */
function serviceLabel(service: string): string {
  return service === CALLER_SERVICE ? CALLER_SERVICE : nodeById(service).label;
}

/** A delegation's polls of its child (and their renewals of its lease): counted, not drawn. */
const POLL = 'GetTask';

/** Spans shown as a count on their parent's line, with what is below them. */
const FOLDED = [SPAN.commit, POLL] as const;

/** An attribute's value as text (a2a-once sets only strings, numbers and booleans). */
const text = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);

const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** What a span's line says after its name. */
function details(span: ServiceSpan, commits: number, polls: number): string {
  const a = span.attributes;
  const parts: string[] = [`[${serviceLabel(span.service)}]`];
  // Sends and polls are both served and called by one service: the kind says which (an attempt is the caller's).
  if (span.kind !== 'INTERNAL' && span.name !== SPAN.attempt) parts.push(span.kind);
  if (span.name === SPAN.attempt && a[ATTR.attempt] !== undefined)
    parts.push(`attempt ${text(a[ATTR.attempt])}`);
  if (a[ATTR.admission] !== undefined) parts.push(text(a[ATTR.admission]));
  if (span.name === SPAN.step) {
    const name = text(a[ATTR.stepName] ?? '?');
    const outcome = text(a[ATTR.stepOutcome] ?? '?');
    parts.push(`${name}: ${outcome}`);
    if (name === LEDGER_POST_STEP && outcome === 'recorded') parts.push('=> ledger effect');
  }
  if (a[ATTR.delegationOutcome] !== undefined) parts.push(`child ${text(a[ATTR.delegationOutcome])}`);
  if (a[ATTR.resumed] === true) parts.push('resumed');
  if (a[ATTR.errorType] !== undefined) parts.push(`error ${text(a[ATTR.errorType])}`);
  if (commits > 0) parts.push(count(commits, 'store commit'));
  if (polls > 0) parts.push(count(polls, 'GetTask poll'));
  parts.push(`${Math.round(span.endMs - span.startMs)} ms`);
  return parts.join('  ');
}

/** The lines of the root send's trace; empty when the caller wrote no root send. */
export function traceLines(spans: readonly ServiceSpan[]): string[] {
  const root = rootSend(spans);
  if (root === undefined) return [];
  const inTrace = spans.filter((s) => s.traceId === root.traceId);
  // Over every span: a turn resumed after a restart is the root of a trace of its own, linked to this one.
  const children = new Map<string, ServiceSpan[]>();
  for (const s of spans) {
    if (s.parentSpanId === undefined) continue;
    const list = children.get(s.parentSpanId) ?? [];
    list.push(s);
    children.set(s.parentSpanId, list);
  }
  for (const list of children.values()) list.sort((x, y) => x.startMs - y.startMs);
  const services = new Set(inTrace.map((s) => s.service));
  const lines = [
    `trace ${root.traceId}: ${inTrace.length} spans from ${services.size} services (store commits and GetTask polls counted on their parent)`,
  ];
  const walk = (span: ServiceSpan, prefix: string, branch: string) => {
    const kids = children.get(span.spanId) ?? [];
    const folded = (name: string) => kids.filter((k) => k.name === name).length;
    const shown = kids.filter((k) => !(FOLDED as readonly string[]).includes(k.name));
    lines.push(`${prefix}${branch}${span.name}  ${details(span, folded(SPAN.commit), folded(POLL))}`);
    const next = prefix + (branch === '' ? '' : branch === '└─ ' ? '   ' : '│  ');
    shown.forEach((k, i) => walk(k, next, i === shown.length - 1 ? '└─ ' : '├─ '));
  };
  walk(root, '', '');
  const linked = spans.filter(
    (s) => s.parentSpanId === undefined && s.links.some((l) => l.traceId === root.traceId),
  );
  for (const s of linked.sort((x, y) => x.startMs - y.startMs)) {
    lines.push(`linked to this trace, in a trace of its own (a turn resumed after a restart):`);
    walk(s, '', '');
  }
  // Spans whose parent never ended: the process was killed first (--crash), so the parent was never written.
  const ids = new Set(inTrace.map((s) => s.spanId));
  const orphans = inTrace.filter((s) => s.parentSpanId !== undefined && !ids.has(s.parentSpanId));
  if (orphans.length > 0)
    lines.push(`${count(orphans.length, 'span')} whose parent was never written (its process was killed)`);
  return lines;
}
