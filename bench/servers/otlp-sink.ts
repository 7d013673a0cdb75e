/**
 * A local OTLP/HTTP receiver that answers 200 to every export and keeps nothing, for measuring
 * tracing's cost on the gateway alone (bench/README.md):
 *   PORT=4318 npx tsx bench/servers/otlp-sink.ts &
 *   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 BENCH_ONLY=1 npm run bench
 * On SIGTERM it prints how many exports and bytes it took.
 */
import { createServer } from 'node:http';

let exports = 0;
let bytes = 0;
createServer((request, response) => {
  request.on('data', (chunk: Buffer) => (bytes += chunk.length));
  request.on('end', () => {
    exports += 1;
    response.writeHead(200, { 'content-type': request.headers['content-type'] ?? 'application/x-protobuf' });
    response.end();
  });
}).listen(Number(process.env.PORT ?? 4318), '127.0.0.1');

process.on('SIGTERM', () => {
  process.stdout.write(`${JSON.stringify({ exports, bytes })}\n`);
  process.exit(0);
});
