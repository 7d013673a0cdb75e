/** What loadConfig refuses, for the configuration specs. */
import { ConfigError, loadConfig } from '../../src/config/index';

/** The ConfigError loadConfig throws for this environment; a test failure when it accepts it. */
export function configRefusal(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}
