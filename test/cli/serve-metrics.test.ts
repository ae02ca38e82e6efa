/**
 * `a2a-once serve --metrics-port N` as a real process (dist/, ADR 0095): off by default; with it, the metrics
 * (ADR 0094) in Prometheus text at `/metrics` on a listener of their own, written by OpenTelemetry's Prometheus
 * exporter; a metrics port in use fails the start in one line naming the flag.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_METADATA_KEY, mintKey } from '../../src/idempotency/index.js';
import { cliBuilt, startServe } from '../processes/serve-process.js';
import { rpcRequest, userMsg } from '../helpers/http.js';

/** The metrics URL `serve` printed on stderr, once it has. */
async function metricsUrl(stderr: () => string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const m = /a2a-once serve: metrics at (\S+)/.exec(stderr());
    if (m) return m[1]!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no metrics line on stderr:\n${stderr()}`);
}

describe.skipIf(!cliBuilt)('a2a-once serve --metrics-port', () => {
  it('serves the metrics in Prometheus text after a send, on the port it prints', async () => {
    const serve = await startServe(['--agent', 'echo', '--store', 'memory', '--metrics-port', '0']);
    try {
      const url = await metricsUrl(serve.stderr);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const key = mintKey();
      const message = {
        ...userMsg(crypto.randomUUID(), 'hi'),
        metadata: { [IDEMPOTENCY_METADATA_KEY]: key },
      };
      const req = rpcRequest('SendMessage', { message }, { base: serve.url });
      expect((await fetch(req)).status).toBe(200);
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      const text = await res.text();
      expect(text).toMatch(/^# TYPE a2a_once_admission_total counter$/m);
      expect(text).toMatch(/^a2a_once_admission_total\{[^}]*outcome="claimed"[^}]*\} 1$/m);
      expect(text).toMatch(/^# TYPE a2a_once_server_call_duration histogram$/m);
      expect(text).toMatch(
        /^a2a_once_server_call_duration_count\{[^}]*a2a_method_name="SendMessage"[^}]*\} 1$/m,
      );
      expect(text).toMatch(
        /^a2a_once_agent_turns_total\{[^}]*a2a_task_state="TASK_STATE_COMPLETED"[^}]*\} 1$/m,
      );
      expect(text).not.toContain(key);
      // The live-keys gauge: the one key the send claimed.
      expect(text).toMatch(/^# TYPE a2a_once_keys_live gauge$/m);
      expect(text).toMatch(/^a2a_once_keys_live(\{[^}]*\})? 1$/m);
      expect((await fetch(new URL('/other', url))).status).toBe(404);
    } finally {
      await serve.stop();
    }
  }, 30_000);

  it('is off by default', async () => {
    const serve = await startServe(['--agent', 'echo', '--store', 'memory']);
    try {
      await new Promise((r) => setTimeout(r, 200));
      expect(serve.stderr()).not.toContain('metrics at');
    } finally {
      await serve.stop();
    }
  }, 30_000);

  it('refuses to start when the metrics port is in use, naming the flag', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    const port = (busy.address() as { port: number }).port;
    try {
      await expect(
        startServe(
          ['--agent', 'echo', '--store', 'memory', '--metrics-port', String(port)],
          undefined,
          10_000,
        ),
      ).rejects.toThrow(
        new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use: pick another with --metrics-port N`),
      );
    } finally {
      await new Promise((r) => busy.close(r));
    }
  }, 30_000);
});
