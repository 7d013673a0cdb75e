/**
 * `npm start`. The GraphQL gateway itself lands with the gateway-core issue; until then this starts
 * the embedded upstreams that the gateway will use on its defaults, and says so.
 */
import { startEmbeddedUpstreams } from './embedded-upstreams';

void (async () => {
  const upstreams = await startEmbeddedUpstreams();
  console.log(upstreams.banner);
  console.log(' The gateway (GraphQL on :4000) is not built yet: see the open gateway-core issue.');
  const stop = () => void upstreams.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
})().catch((error: unknown) => {
  console.error('start failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
