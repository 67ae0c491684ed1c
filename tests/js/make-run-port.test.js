// make-run-port.test.js: `make run PORT=...` checks its port first (scripts/port-free.mjs):
// a free port passes, a port in use and a bad number fail with a message that names a way out.
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../../scripts/port-free.mjs', import.meta.url));
const run = (...args) => spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });

describe('make run: port check', () => {
  it('passes on a free port, and says a used one is in use and which to try', async () => {
    const server = net.createServer();
    await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
    const { port } = server.address();
    const busy = run('127.0.0.1', String(port));
    expect(busy.status).toBe(1);
    expect(busy.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(busy.stderr).toContain(`make run PORT=${port + 1}`);
    await new Promise((ok) => server.close(ok));
    const free = run('127.0.0.1', String(port));
    expect(free.status).toBe(0);
    expect(free.stderr).toBe('');
  });
  it('refuses what is not a port number', () => {
    for (const bad of ['abc', '0', '70000', '']) {
      const r = run('127.0.0.1', bad);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/is not a port number/);
    }
  });
});
