/**
 * The fault proxy itself, against a real echo server on loopback: it passes bytes, a stall forwards nothing either
 * way until healed (then delivers what it held, in order), a cut destroys every open connection, and new
 * connections pass or stall as asked; given several targets, it sends each new connection to the next in turn.
 * The store and process tests trust these modes, so they are proved here.
 */
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

let echo: Server;
let echoPort: number;
beforeAll(async () => {
  echo = createServer((s) => {
    s.on('error', () => undefined);
    s.pipe(s);
  });
  echo.listen(0, '127.0.0.1');
  await once(echo, 'listening');
  echoPort = (echo.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

/** A client socket that collects what it receives. */
async function client(proxy: TcpProxy): Promise<{ socket: Socket; received: () => string }> {
  const socket = connect({ host: '127.0.0.1', port: proxy.port });
  socket.on('error', () => undefined);
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString()));
  await once(socket, 'connect');
  return { socket, received: () => text };
}

async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('tcp proxy', () => {
  it('with several targets, sends each new connection to the next in turn', async () => {
    const other = createServer((sock) => {
      sock.on('error', () => undefined);
      sock.end('B');
    });
    other.listen(0, '127.0.0.1');
    await once(other, 'listening');
    const otherPort = (other.address() as AddressInfo).port;
    const proxy = await startTcpProxy([
      { host: '127.0.0.1', port: echoPort },
      { host: '127.0.0.1', port: otherPort },
    ]);
    try {
      const a = await client(proxy);
      a.socket.write('A');
      await until(() => a.received() === 'A');
      const b = await client(proxy);
      await until(() => b.received() === 'B');
      expect(proxy.connections().map((c) => c.target)).toEqual([0, 1]);
      a.socket.destroy();
      b.socket.destroy();
    } finally {
      await proxy.close();
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('passes bytes both ways and counts them per connection', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: echoPort });
    try {
      const c = await client(proxy);
      c.socket.write('hello');
      await until(() => c.received() === 'hello');
      expect(proxy.connections()).toEqual([
        { id: 1, bytesUp: 5, bytesDown: 5, open: true, stalled: false, cut: false, target: 0 },
      ]);
      c.socket.destroy();
      await until(() => proxy.openCount() === 0);
    } finally {
      await proxy.close();
    }
  });

  it('a stall forwards nothing until healed, then delivers what it held in order', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: echoPort });
    try {
      const c = await client(proxy);
      c.socket.write('a');
      await until(() => c.received() === 'a');
      proxy.stall();
      c.socket.write('b');
      c.socket.write('c');
      await pause(150);
      expect(c.received()).toBe('a');
      expect(proxy.connections()[0]).toMatchObject({ bytesUp: 3, bytesDown: 1, stalled: true, open: true });
      proxy.heal();
      await until(() => c.received() === 'abc');
      c.socket.destroy();
    } finally {
      await proxy.close();
    }
  });

  it('a stalled connection whose client closes is seen closed at once, and the close is held', async () => {
    let serverSideClosed = false;
    const watched = createServer((s) => {
      s.on('error', () => undefined);
      s.on('close', () => (serverSideClosed = true));
    });
    watched.listen(0, '127.0.0.1');
    await once(watched, 'listening');
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: (watched.address() as AddressInfo).port });
    try {
      const c = await client(proxy);
      await pause(50);
      proxy.stall();
      c.socket.destroy();
      await until(() => proxy.openCount() === 0);
      await pause(100);
      expect(serverSideClosed).toBe(false);
      proxy.heal();
      await until(() => serverSideClosed);
    } finally {
      await proxy.close();
      await new Promise<void>((resolve) => watched.close(() => resolve()));
    }
  });

  it('new connections pass during a stall unless asked to stall too', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: echoPort });
    try {
      proxy.stall();
      const fresh = await client(proxy);
      fresh.socket.write('x');
      await until(() => fresh.received() === 'x');
      proxy.stall({ newConnections: true });
      const held = await client(proxy);
      held.socket.write('y');
      await pause(150);
      expect(held.received()).toBe('');
      proxy.heal();
      await until(() => held.received() === 'y');
      await until(() => fresh.received() === 'x');
      fresh.socket.destroy();
      held.socket.destroy();
    } finally {
      await proxy.close();
    }
  });

  it('a cut destroys every open connection; later ones pass', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: echoPort });
    try {
      const a = await client(proxy);
      const closed = once(a.socket, 'close');
      proxy.cut();
      await closed;
      expect(proxy.connections()[0]).toMatchObject({ cut: true, open: false });
      const b = await client(proxy);
      b.socket.write('z');
      await until(() => b.received() === 'z');
      b.socket.destroy();
    } finally {
      await proxy.close();
    }
  });
});
