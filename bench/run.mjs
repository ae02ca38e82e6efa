// `npm run bench` (after `npm run build`): send-message.mjs, store-throughput.mjs, then bindings.mjs, with the same options
// (--duration, --warmup, --rounds, --connections). Each runs as its own process; Ctrl-C stops both.
import { spawn } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
let child;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    child?.kill(sig);
    process.exit(130);
  });
}
for (const script of ['send-message.mjs', 'store-throughput.mjs', 'bindings.mjs']) {
  child = spawn(process.execPath, [join(here, script), ...process.argv.slice(2)], { stdio: 'inherit' });
  const code = await new Promise((resolve) => child.on('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
  // A crash is worth a non-zero exit; a missed performance target never is (the scripts exit 0 then).
  if (code !== 0) process.exit(code);
  console.log('');
}
