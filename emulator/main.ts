/** `npm run emulator`: the emulator alone, configured by EMULATOR_ENVIRONMENT, EMULATOR_PORT, EMULATOR_HOST. */
import { z } from 'zod';
import { startEmulator } from './index';

const env = z
  .object({
    EMULATOR_ENVIRONMENT: z.enum(['sandbox', 'production']).default('sandbox'),
    EMULATOR_PORT: z.coerce.number().int().min(0).max(65_535).default(4010),
    EMULATOR_HOST: z.string().min(1).default('127.0.0.1'),
  })
  .safeParse(process.env);

if (!env.success) {
  for (const issue of env.error.issues) console.error(`emulator: ${issue.path.join('.')}: ${issue.message}`);
  process.exit(2);
}

void (async () => {
  const { EMULATOR_ENVIRONMENT: environment, EMULATOR_PORT: port, EMULATOR_HOST: host } = env.data;
  const emulator = await startEmulator({ environment, port, host });
  console.log(`Statement Filing Service emulator (${environment}) listening on ${emulator.url}`);
  console.log(`  sign-in: POST ${emulator.url}/v2/auth/sign_in   GraphQL: POST ${emulator.url}/v2/graphql`);
  console.log(`  demo account: ${emulator.demoAccount.email} / ${emulator.demoAccount.password}`);
  const stop = () => void emulator.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
})().catch((error: unknown) => {
  console.error('emulator: could not start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
