// Does a durable-store server's memory stay flat? Keyed SendMessage against one a2a-once server for a given
// number of sends, in chunks; after each chunk, the server's resident set size (VmRSS) and the sends so far.
//
//   node bench/rss-soak.mjs [--store sqlite|postgres|memory] [--sends 1000000] [--chunk 30] [--connections 16]
//
// A chunk is `--chunk` seconds of load (the load generator's own duration). The first chunk is warm-up for the
// figure "growth after warm-up". RSS that keeps rising chunk after chunk is a leak; a plateau is a cache.
import { readFileSync } from 'node:fs';
import { int, makeStore, printTable, runLoad, startServer } from './lib/harness.mjs';

const argv = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : fallback;
};
const kind = arg('store', 'sqlite');
const target = Number(arg('sends', '1000000'));
const chunk = Number(arg('chunk', '30'));
const connections = Number(arg('connections', '16'));

function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

const store = await makeStore(kind);
const server = await startServer('a2a-once.mjs', [store.url]);
const rows = [];
let sent = 0;
const started = Date.now();
try {
  console.log(
    `# RSS of an a2a-once server on ${kind} over ${int(target)} keyed sends (${connections} connections)`,
  );
  rows.push(['0', '0', rssMb(server.child.pid).toFixed(1), '-']);
  while (sent < target) {
    const r = await runLoad({
      url: server.url,
      connections,
      warmup: 0,
      duration: chunk,
      keyed: true,
      check: 'task',
    });
    sent += r.checked;
    const failed = r.failures.reduce((a, f) => a + f.count, 0);
    const rss = rssMb(server.child.pid);
    rows.push([int(sent), `${Math.round((Date.now() - started) / 1000)}`, rss.toFixed(1), int(r.rps)]);
    console.log(
      `  ${int(sent)} sends, RSS ${rss.toFixed(1)} MB, ${int(r.rps)} req/s${failed ? `, ${failed} FAILED` : ''}`,
    );
  }
} finally {
  await server.stop();
  await store.cleanup();
}
printTable(['sends so far', 'seconds', 'RSS MB', 'req/s in chunk'], rows);
const after = Number(rows[1][2]);
const last = Number(rows.at(-1)[2]);
console.log(
  `growth after the first chunk: ${(last - after).toFixed(1)} MB (${after.toFixed(1)} -> ${last.toFixed(1)})`,
);
