/** A port free on 127.0.0.1 right now (for a server whose card must name its port before it listens). */
import { createServer } from 'node:net';

export function checkPortFree(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}
