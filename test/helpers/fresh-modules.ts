/**
 * Runs before every test file (vitest `setupFiles`). The suite runs its files without isolation: a worker process
 * runs one file after another instead of starting a fresh process for each, which halves the suite's CPU time on a
 * two-core machine. Without more, a worker would also keep the modules an earlier file imported, and with them
 * that file's module-level state: a helper's temporary directory its `afterAll` removed, a pool it ended, hooks it
 * registered for the first file only. So the module registry is emptied here, and each file imports this
 * repository's modules afresh, as in a process of its own. What stays shared is the process itself (packages in
 * node_modules, globals, open handles): each file closes what it opens.
 */
import { vi } from 'vitest';

vi.resetModules();
