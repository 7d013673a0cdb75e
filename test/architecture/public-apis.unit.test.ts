/**
 * The gateway relies on other libraries' public APIs only: no parsing of their internal strings,
 * no hidden properties they happen to read, no classifying of errors by their messages. Checked
 * on the syntax trees of src/ (comments and prose never count), in-process and in about a second.
 *
 * 1. No `fieldIdentity`: @envelop/rate-limiter's internal key for a field's caller (the anonymous
 *    limit counts the root fields itself, protection/use-anonymous-limit.ts).
 * 2. Nothing defines a property named `stringify` (Yoga serialises with one when a result carries
 *    it): bytes the gateway holds are written through Yoga's public setResultProcessor
 *    (request/raw-json-answers.ts).
 * 3. src/errors/ tells errors apart by their code or shape, never by a test of their message:
 *    refusals carry their code from where they are made (protection/use-query-limits.ts).
 * 4. No regular expression in src/ spells graphql-armor's or Yoga's refusal wording.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { isUnder, listSourceFiles, ROOT } from '../../scripts/source-graph';

const MESSAGE_TESTS = new Set(['test', 'exec', 'match', 'matchAll', 'search', 'startsWith', 'endsWith', 'includes']);
const LIBRARY_WORDING = /Syntax Error|limit of|Batching is/;

interface Finding {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

const files = listSourceFiles(ROOT, ['src'], /\.ts$/);
const sources = new Map(files.map((file) => [file, ts.createSourceFile(file, readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true)]));

function walk(visit: (node: ts.Node, source: ts.SourceFile, file: string) => void): void {
  for (const [file, source] of sources) {
    const each = (node: ts.Node): void => {
      visit(node, source, file);
      ts.forEachChild(node, each);
    };
    each(source);
  }
}

function finding(node: ts.Node, source: ts.SourceFile, file: string): Finding {
  return { file, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, text: node.getText(source) };
}

const show = (found: readonly Finding[]) => found.map(({ file, line, text }) => `${file}:${line}: ${text}`);

/** `x.message`, `x?.message`, `x['message']`. */
function isMessage(node: ts.Node): boolean {
  if (ts.isPropertyAccessExpression(node)) return node.name.text === 'message';
  return ts.isElementAccessExpression(node) && ts.isStringLiteral(node.argumentExpression) && node.argumentExpression.text === 'message';
}

/** A property named `stringify` being defined: `{ stringify }`, `x.stringify = f`, `Object.defineProperty(x, 'stringify', ...)`. */
function definesStringify(node: ts.Node): boolean {
  if ((ts.isPropertyAssignment(node) || ts.isMethodDeclaration(node) || ts.isShorthandPropertyAssignment(node)) && node.name.getText() === 'stringify') {
    return ts.isObjectLiteralExpression(node.parent);
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
    return ts.isPropertyAccessExpression(node.left) && node.left.name.text === 'stringify';
  }
  if (ts.isCallExpression(node) && /^(Object|Reflect)\.(defineProperty|defineProperties)$/.test(node.expression.getText())) {
    const key = node.arguments[1];
    return key !== undefined && (ts.isStringLiteralLike(key) ? key.text === 'stringify' : /\bstringify\b/.test(key.getText()));
  }
  return false;
}

describe('reliance on other libraries', () => {
  it('reads src/', () => {
    expect(files.length).toBeGreaterThan(50);
  });

  it("never reads @envelop/rate-limiter's internal fieldIdentity", () => {
    const found: Finding[] = [];
    walk((node, source, file) => {
      if (ts.isIdentifier(node) && node.text === 'fieldIdentity') found.push(finding(node, source, file));
      if (ts.isStringLiteralLike(node) && node.text === 'fieldIdentity') found.push(finding(node, source, file));
    });
    expect(show(found)).toEqual([]);
  });

  it('defines no `stringify` on a result for Yoga to find', () => {
    const found: Finding[] = [];
    walk((node, source, file) => {
      if (definesStringify(node)) found.push(finding(node, source, file));
    });
    expect(show(found)).toEqual([]);
  });

  it('classifies no error by a test of its message in src/errors/', () => {
    const found: Finding[] = [];
    walk((node, source, file) => {
      if (!isUnder(file, 'src/errors') || !ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return;
      const method = node.expression.name.text;
      if (!MESSAGE_TESTS.has(method)) return;
      // `/re/.test(x.message)` or `x.message.startsWith(...)`.
      if (node.arguments.some(isMessage) || isMessage(node.expression.expression)) found.push(finding(node, source, file));
    });
    expect(show(found)).toEqual([]);
  });

  it("spells graphql-armor's or Yoga's refusal wording in no regular expression", () => {
    const found: Finding[] = [];
    walk((node, source, file) => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral && LIBRARY_WORDING.test(node.getText(source))) found.push(finding(node, source, file));
      if (ts.isNewExpression(node) && node.expression.getText(source) === 'RegExp' && LIBRARY_WORDING.test(node.getText(source))) found.push(finding(node, source, file));
    });
    expect(show(found)).toEqual([]);
  });
});
