// Kubernetes contract shared by the operator and the server: CRD types and schemas for
// TokenizationPolicy and Tenant, the CRD generator, offline CRD validation, the on-disk layouts
// of the mounted policy, key-ring, API-key and tenant-settings directories, and the chart ->
// operator settings. Pure: no Kubernetes client.
export * from './types.js';
export * from './duration.js';
export * from './layout.js';
export * from './operator-settings.js';
export { compileCelRule, parseGoDuration } from './cel.js';
export type { CelRule, CompiledCelRule } from './cel.js';
export { toStructuralSchema, structuralProblems } from './structural.js';
export type { Schema as JsonSchemaObject } from './structural.js';
export { CRD_FILES, POLICY_CRD_SCHEMA, renderCrdFiles, renderCrdYaml, tenantCrd, tokenizationPolicyCrd, veilCrds } from './crds.js';
export { compileCrd, validateAgainstCrd } from './validate.js';
export { parseYamlDocuments, stringifyPortableYaml, yamlVersionDifference } from './portable-yaml.js';
export type { CompiledCrd, CrdValidationError, CrdValidationOptions, CrdValidationResult } from './validate.js';
