import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { greetOnce, startGreeter } from '../../examples/quick-start.js';

describe('README quick start', () => {
  let greeter: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    greeter = await startGreeter(0);
  });
  afterAll(async () => {
    await greeter.close();
  });

  it('serves its card and greets over REST', async () => {
    const card = (await (await fetch(`${greeter.url}/.well-known/agent-card.json`)).json()) as {
      name: string;
    };
    expect(card.name).toBe('greeter');
    const res = await fetch(`${greeter.url}/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: { messageId: 'qs-1', role: 'ROLE_USER', parts: [{ text: 'Ada' }] } }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      task: { status: { state: string }; artifacts: { parts: { text: string }[] }[] };
    };
    expect(body.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.task.artifacts[0]?.parts[0]?.text).toBe('hello, Ada');
  });

  it('greets through the client with a keyed send', async () => {
    expect(await greetOnce(greeter.url, 'Grace')).toBe('hello, Grace');
  });
});
