// Shared by the server entry points: listen on loopback, print the URL on one line, exit on SIGTERM/SIGINT.
export function listenAndAnnounce(server, onClose = async () => {}) {
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    server.closeAllConnections?.();
    server.close();
    // The harness SIGKILLs after a grace period anyway; this keeps the normal exit quick.
    await Promise.race([onClose(), new Promise((r) => setTimeout(r, 2000).unref())]);
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  exitWithParent(stop);
}

/** The harness gives each server a stdin pipe: its end means the harness died, so the server must go too. */
export function exitWithParent(stop) {
  process.stdin.on('end', stop).on('error', stop).resume();
}

/** Prints a gRPC server's address as `grpc://127.0.0.1:PORT` and stops it (`shutdown`) on SIGTERM/SIGINT. */
export function announceGrpc(port, shutdown) {
  process.stdout.write(`grpc://127.0.0.1:${port}\n`);
  const stop = () => {
    shutdown();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  exitWithParent(stop);
}
