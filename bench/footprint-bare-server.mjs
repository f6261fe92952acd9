// The baseline of the footprint bench: a bare Fastify server answering /healthz, nothing else.
// Usage: node bench/footprint-bare-server.mjs <port>
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ host: '127.0.0.1', port: Number(process.argv[2]) });
