/**
 * `kubectl kustomize <folder>`, parsed: the objects a Kustomize base or overlay renders to, with no
 * cluster. Used by scripts/network-reach.ts and the tests of deploy/kubernetes.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

export interface K8sObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: Record<string, string>; readonly [field: string]: unknown };
  readonly [field: string]: unknown;
}

/** Renders `folder` (relative to the working directory or absolute); throws with kubectl's message. */
export function renderKustomization(folder: string): K8sObject[] {
  const result = spawnSync('kubectl', ['kustomize', path.resolve(folder)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`kubectl kustomize ${folder} failed: ${result.stderr || String(result.error)}`);
  return parseAllDocuments(result.stdout).map((document) => document.toJS() as K8sObject);
}
