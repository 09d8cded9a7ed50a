// CRD validation for the API simulator, from the committed crds/*.yaml (the same files the Helm
// chart installs) through @veil/common's compileCrd: unknown fields pruned (or refused under
// strict field validation), structural schema, formats and the CEL rules (including
// `self == oldSelf` immutability on update).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileCrd } from '@veil/common';
import type { KindName, KubeObject } from '../../src/kube/types.js';
import type { ObjectValidator } from './server.js';

/** crds/ at the repository root. */
export const CRD_DIRECTORY = fileURLToPath(new URL('../../../crds', import.meta.url));

export function crdValidators(directory = CRD_DIRECTORY): Partial<Record<KindName, ObjectValidator>> {
  const validators: Partial<Record<KindName, ObjectValidator>> = {};
  for (const file of readdirSync(directory).filter((name) => name.endsWith('.yaml')).sort()) {
    const crd = compileCrd(readFileSync(join(directory, file), 'utf8'));
    const kind = crd.kind as KindName;
    validators[kind] = Object.assign(
      (object: KubeObject, old: KubeObject | undefined) => {
        const result = crd.validate(object, old === undefined ? {} : { oldObject: old });
        return result.errors.map((error) => `${error.path}: ${error.message}`);
      },
      { prune: (object: KubeObject) => crd.prune(object) },
    );
  }
  return validators;
}
