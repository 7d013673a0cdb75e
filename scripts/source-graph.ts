/**
 * Reads the repository's file-level import graph with the TypeScript compiler API, so the layout
 * rules (no circles, dependency direction) are checked against what the compiler sees rather than
 * against a regex over the text. Every module reference counts: `import`, `import type`,
 * `export ... from`, `import x = require()`, `import()` calls and `import('x').T` type queries,
 * and `require('x')` calls. An edge is type-only when nothing of it survives compilation; the
 * issue's rule ("the import graph has no circle") covers those too, so they are kept, marked.
 * Specifiers are resolved with the project's tsconfig (`ts.resolveModuleName`), as tsc resolves
 * them; packages are left out, and a relative specifier that resolves to nothing is reported,
 * since a blind spot would let a circle through unseen.
 * Used by `scripts/import-graph.ts` and `test/architecture/imports.unit.test.ts`.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const ROOT = path.resolve(__dirname, '..');

/** The code the gateway is made of, and the tools and doubles around it. */
export const SOURCE_ROOTS = ['.meshrc.ts', 'additional-resolvers', 'src', 'emulator', 'scripts', 'bench', 'sources', 'test'];

/** TypeScript files, declaration files included: `declare module` blocks import too. */
export const TYPESCRIPT_FILES = /\.[cm]?tsx?$/;
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'results']);

export interface ImportEdge {
  /** Repository-relative, `/`-separated paths. */
  readonly from: string;
  readonly to: string;
  readonly specifier: string;
  /** 1-based line of the reference in `from`. */
  readonly line: number;
  /** Erased by the compiler: `import type`, only `type` specifiers, `import('x').T`. */
  readonly typeOnly: boolean;
}

export interface UnresolvedImport {
  readonly from: string;
  readonly specifier: string;
  readonly line: number;
}

export interface SourceGraph {
  readonly files: readonly string[];
  readonly edges: readonly ImportEdge[];
  readonly unresolved: readonly UnresolvedImport[];
}

interface ModuleReference {
  readonly specifier: string;
  readonly node: ts.StringLiteralLike;
  readonly typeOnly: boolean;
}

/** Lists the files named like `pattern` under the given repository-relative files and folders. */
export function listSourceFiles(root: string, roots: readonly string[] = SOURCE_ROOTS, pattern: RegExp = TYPESCRIPT_FILES): string[] {
  const files: string[] = [];
  const visit = (relative: string): void => {
    const full = path.join(root, relative);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(full).isDirectory();
    } catch {
      return;
    }
    if (!isDirectory) {
      if (pattern.test(relative)) files.push(relative);
      return;
    }
    for (const name of readdirSync(full).sort()) {
      if (!SKIPPED_DIRECTORIES.has(name)) visit(path.posix.join(relative, name));
    }
  };
  for (const entry of roots) visit(entry);
  return files;
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // `import './x'` runs x.
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return !clause.name && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
}

/** Every module a file refers to, with a string literal for a name. */
export function moduleReferences(sourceFile: ts.SourceFile): ModuleReference[] {
  const found: ModuleReference[] = [];
  const add = (literal: ts.Expression | undefined, typeOnly: boolean): void => {
    if (literal && ts.isStringLiteralLike(literal)) found.push({ specifier: literal.text, node: literal, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, isTypeOnlyImport(node));
    else if (ts.isExportDeclaration(node)) add(node.moduleSpecifier, isTypeOnlyExport(node));
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node.moduleReference.expression, node.isTypeOnly);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal, true);
    else if (ts.isCallExpression(node) && node.arguments.length >= 1) {
      const isDynamicImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      if (isDynamicImport || isRequire) add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

function compilerOptions(root: string): ts.CompilerOptions {
  const configPath = path.join(root, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file));
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, configPath).options;
}

function toRelative(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}

/** Reads the import graph of the TypeScript files under `roots`. */
export function readSourceGraph(root: string = ROOT, roots: readonly string[] = SOURCE_ROOTS): SourceGraph {
  const options = compilerOptions(root);
  const host = ts.createCompilerHost(options);
  const cache = ts.createModuleResolutionCache(root, (name) => name, options);
  const files = listSourceFiles(root, roots);
  const edges: ImportEdge[] = [];
  const unresolved: UnresolvedImport[] = [];
  for (const relative of files) {
    const fileName = path.join(root, relative);
    const text = ts.sys.readFile(fileName) ?? '';
    const impliedNodeFormat = ts.getImpliedNodeFormatForFile(fileName, cache.getPackageJsonInfoCache(), host, options);
    const sourceFile = ts.createSourceFile(fileName, text, { languageVersion: ts.ScriptTarget.Latest, impliedNodeFormat }, true);
    for (const reference of moduleReferences(sourceFile)) {
      const line = sourceFile.getLineAndCharacterOfPosition(reference.node.getStart(sourceFile)).line + 1;
      // An `import()` call resolves as ESM even in a CommonJS file, where NodeNext wants
      // `./x.js`; tsc reports that, and the graph still wants the edge, so CommonJS rules are
      // the fallback.
      const mode = ts.getModeForUsageLocation(sourceFile, reference.node, options);
      const resolve = (as: ts.ResolutionMode): ts.ResolvedModuleFull | undefined =>
        ts.resolveModuleName(reference.specifier, fileName, options, host, cache, undefined, as).resolvedModule;
      const resolved = resolve(mode) ?? (mode === ts.ModuleKind.ESNext ? resolve(ts.ModuleKind.CommonJS) : undefined);
      const target = resolved && !resolved.isExternalLibraryImport ? toRelative(root, resolved.resolvedFileName) : undefined;
      if (target !== undefined && !target.startsWith('../') && !target.includes('/node_modules/')) {
        edges.push({ from: relative, to: target, specifier: reference.specifier, line, typeOnly: reference.typeOnly });
      } else if (reference.specifier.startsWith('.')) {
        unresolved.push({ from: relative, specifier: reference.specifier, line });
      }
    }
  }
  return { files, edges, unresolved };
}

/** True when `file` is `prefix` itself or lies under the folder `prefix`. */
export function isUnder(file: string, prefix: string): boolean {
  return file === prefix || file.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);
}

/** The edges whose both ends lie under one of `roots`. */
export function edgesWithin(graph: SourceGraph, roots: readonly string[]): ImportEdge[] {
  const inside = (file: string): boolean => roots.some((r) => isUnder(file, r));
  return graph.edges.filter((e) => inside(e.from) && inside(e.to));
}
