// port-free.mjs: exits 0 when HOST:PORT can be listened on, else says why and how to
// pick another port (make run PORT=...), and exits 1. Used by `make run`.
// Usage: node scripts/port-free.mjs HOST PORT
import net from 'node:net';

const [host, portText] = process.argv.slice(2);
const port = Number(portText);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`galloc: PORT=${portText ?? ''} is not a port number (1..65535); try make run PORT=8081`);
  process.exit(1);
}
const server = net.createServer();
server.once('error', (e) => {
  const why = e.code === 'EADDRINUSE' ? 'is already in use (another make run, or another server?)'
    : e.code === 'EACCES' ? 'needs privileges to be listened on' : `cannot be listened on (${e.code ?? e.message})`;
  console.error(`galloc: port ${port} on ${host} ${why}; pick another one: make run PORT=${port === 65535 ? 8081 : port + 1}`);
  process.exit(1);
});
server.listen(port, host, () => server.close(() => process.exit(0)));
