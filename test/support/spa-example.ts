/**
 * The example frontend (examples/spa) taken through the steps its README gives a developer, from
 * Node: GraphQL Code Generator, the TypeScript check, `vite build`, and Vite's dev server with its
 * proxy to the gateway.
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { generate, loadContext } from '@graphql-codegen/cli';
import ts from 'typescript';
import { build, createServer, type InlineConfig, type ViteDevServer } from 'vite';

export const SPA_ROOT = path.resolve(__dirname, '..', '..', 'examples', 'spa');
const VITE_CONFIG = path.join(SPA_ROOT, 'vite.config.ts');

/** What `graphql-codegen --config examples/spa/codegen.ts` (or `<root>/codegen.ts`) would write, without writing it. */
export async function generatedFiles(root = SPA_ROOT): Promise<{ filename: string; content: string }[]> {
  const context = await loadContext(path.join(root, 'codegen.ts'));
  return generate(context, false);
}

/** `tsc -p examples/spa/tsconfig.json` (or `<root>/tsconfig.json`): its messages, none when the example typechecks. */
export function typecheckExample(root = SPA_ROOT): string[] {
  const file = path.join(root, 'tsconfig.json');
  const { config } = ts.readConfigFile(file, (name) => ts.sys.readFile(name));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file ? `${path.relative(root, diagnostic.file.fileName)}: ` : '';
    return where + ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  });
}

/** Vite settings the tests share: the example's own config file, nothing written into the repository. */
function common(cacheDir: string): InlineConfig {
  // 'runner' loads vite.config.ts without writing a bundled copy next to it.
  return { root: SPA_ROOT, configFile: VITE_CONFIG, configLoader: 'runner', cacheDir, logLevel: 'silent', clearScreen: false };
}

/** `VITE_GATEWAY_URL=<gatewayUrl> vite build --outDir <outDir>`. */
export async function buildExample(options: { gatewayUrl: string; outDir: string; cacheDir: string }): Promise<void> {
  await build({
    ...common(options.cacheDir),
    define: { 'import.meta.env.VITE_GATEWAY_URL': JSON.stringify(options.gatewayUrl) },
    build: { outDir: options.outDir, emptyOutDir: true },
  });
}

export interface DevServer {
  readonly origin: string;
  close(): Promise<void>;
}

/**
 * `GATEWAY_URL=<gatewayUrl> vite`: the dev server's middlewares (index.html, modules, the example's
 * proxy as committed or with `changeOrigin` overridden) on 127.0.0.1 and a free port (Vite's own
 * listener takes port 0 as its default, 5173).
 */
export async function startDevServer(options: { gatewayUrl: string; cacheDir: string; changeOrigin?: boolean }): Promise<DevServer> {
  const proxy = options.changeOrigin === undefined ? {} : { proxy: { '/graphql': { target: options.gatewayUrl, changeOrigin: options.changeOrigin } } };
  const previous = process.env.GATEWAY_URL;
  process.env.GATEWAY_URL = options.gatewayUrl;
  const http = createHttpServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  let vite: ViteDevServer;
  try {
    // The page's HMR client connects to the same server; files are not watched.
    vite = await createServer({ ...common(options.cacheDir), server: { middlewareMode: true, hmr: { server: http }, watch: null, ...proxy } });
  } finally {
    if (previous === undefined) delete process.env.GATEWAY_URL;
    else process.env.GATEWAY_URL = previous;
  }
  http.on('request', vite.middlewares);
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      await vite.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
