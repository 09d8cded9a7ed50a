// Pure desired state of one namespace's policy directory: from every TokenizationPolicy of the
// namespace and the ConfigMap as it stands, the files the ConfigMap must hold and the status of
// each policy. Validation is the server's own (parsePolicy over the exact file the server will
// read), so what is published here loads there. An invalid policy is never published: its last
// valid file (still in the ConfigMap) stays live, and its conditions name the failing fields.
import {
  contentHash,
  DEFAULT_POLICY_FILE,
  directoryBytes,
  directoryHash,
  MAX_OBJECT_DATA_BYTES,
  parsePolicy,
  policyFileName,
  POLICY_CONDITIONS,
  serializePolicyFile,
  type Condition,
  type Policy,
  type TokenizationPolicy,
  type TokenizationPolicyStatus,
} from '@veil/common';
import { rfc3339, setConditions } from '../conditions.js';

const POLICY_NAME = /^[a-z0-9_-]{1,128}$/;
/** Longest condition message: enough for a dozen field problems. */
const MAX_MESSAGE_LENGTH = 4000;

export interface PolicyDirectoryInput {
  readonly namespace: string;
  readonly configMapName: string;
  readonly policies: readonly TokenizationPolicy[];
  /** Data of the ConfigMap as it stands (undefined: it does not exist). */
  readonly current: Readonly<Record<string, string>> | undefined;
  readonly nowMs: number;
}

export interface PolicyEvent {
  readonly policy: string;
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export interface PolicyDirectoryPlan {
  /** The files the ConfigMap must hold. */
  readonly files: Record<string, string>;
  readonly contentHash: string;
  /** New status per policy (metadata.name), for those not being deleted. */
  readonly statuses: ReadonlyMap<string, TokenizationPolicyStatus>;
  readonly events: readonly PolicyEvent[];
}

/** Problems of one TokenizationPolicy, each `field: message` with the field named from the resource's root. */
export function validatePolicyResource(resource: TokenizationPolicy): string[] {
  const problems: string[] = [];
  const name = resource.metadata.name;
  if (!POLICY_NAME.test(name)) problems.push('metadata.name: must match [a-z0-9_-]{1,128} to name a policy file');
  const policy = (resource.spec as { policy?: unknown } | undefined)?.policy;
  if (policy === undefined || policy === null || typeof policy !== 'object') {
    problems.push('spec.policy: is required');
    return problems;
  }
  if ((policy as { name?: unknown }).name !== name) problems.push('spec.policy.name: must equal metadata.name');
  const { issues } = parsePolicy(serializePolicyFile(policy as Policy), `${name}.yaml`);
  for (const issue of issues) {
    const field = issue.field === '(root)' || issue.field === '(yaml)' ? 'spec.policy' : `spec.policy.${issue.field}`;
    problems.push(`${field}: ${issue.message}`);
  }
  return problems;
}

function summarize(problems: readonly string[]): string {
  let message = '';
  for (const [index, problem] of problems.entries()) {
    const next = message === '' ? problem : `${message}; ${problem}`;
    if (next.length > MAX_MESSAGE_LENGTH) return `${message}; and ${problems.length - index} more`;
    message = next;
  }
  return message;
}

interface Assessed {
  readonly resource: TokenizationPolicy;
  readonly name: string;
  readonly file: string | undefined;
  readonly problems: readonly string[];
  /** The file content to publish: the new one when valid, the last good one otherwise. */
  readonly content: string | undefined;
}

export function planPolicyDirectory(input: PolicyDirectoryInput): PolicyDirectoryPlan {
  const current = input.current ?? {};
  const live = input.policies.filter((resource) => resource.metadata.deletionTimestamp === undefined).sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  const assessed: Assessed[] = live.map((resource) => {
    const name = resource.metadata.name;
    const problems = validatePolicyResource(resource);
    const file = POLICY_NAME.test(name) ? policyFileName(name) : undefined;
    if (file === undefined) return { resource, name, file, problems, content: undefined };
    if (problems.length === 0) {
      return { resource, name, file, problems, content: serializePolicyFile(resource.spec.policy, `${input.namespace}/${name}`) };
    }
    return { resource, name, file, problems, content: current[file] };
  });

  // The default marker: among published policies marked default, the one already marked keeps
  // it (no flapping when a second one is marked), else the first by name.
  const markedDefault = assessed.filter((entry) => entry.resource.spec?.default === true && entry.content !== undefined);
  const currentDefault = current[DEFAULT_POLICY_FILE]?.trim();
  const defaultEntry = markedDefault.find((entry) => entry.name === currentDefault) ?? markedDefault[0];

  let files: Record<string, string> = {};
  for (const entry of assessed) if (entry.file !== undefined && entry.content !== undefined) files[entry.file] = entry.content;
  if (defaultEntry !== undefined) files[DEFAULT_POLICY_FILE] = `${defaultEntry.name}\n`;

  // A directory the API server would refuse (over 1 MiB) is not written: everything stays as it is.
  const tooLarge = directoryBytes(files) > MAX_OBJECT_DATA_BYTES;
  if (tooLarge) files = { ...current };

  const statuses = new Map<string, TokenizationPolicyStatus>();
  const events: PolicyEvent[] = [];
  for (const entry of assessed) {
    const { resource, name, file, problems } = entry;
    const previous = resource.status;
    const publishedContent = file === undefined ? undefined : files[file];
    const valid = problems.length === 0;
    const upToDate = valid && publishedContent !== undefined && publishedContent === entry.content;
    let published: { status: 'True' | 'False'; reason: string; message: string };
    if (upToDate) {
      const otherDefault = resource.spec.default === true && defaultEntry !== undefined && defaultEntry.name !== name;
      published = {
        status: 'True',
        reason: 'Published',
        message: `published as ${file} in ConfigMap ${input.configMapName}${otherDefault ? `; not the default: ${defaultEntry.name} is also marked default and keeps it` : ''}`,
      };
    } else if (tooLarge) {
      published = { status: 'False', reason: 'DirectoryTooLarge', message: `not published: the policy directory would exceed ${MAX_OBJECT_DATA_BYTES} bytes; the previous version stays live` };
    } else if (publishedContent !== undefined) {
      published = { status: 'False', reason: 'LastValidVersionLive', message: 'not published: the policy is invalid; the last valid version stays live' };
    } else {
      published = { status: 'False', reason: 'NeverPublished', message: 'not published: the policy has never been valid' };
    }
    const conditions: Condition[] = setConditions(
      previous?.conditions,
      [
        valid
          ? { type: POLICY_CONDITIONS.Valid, status: 'True', reason: 'Valid', message: 'the policy is valid' }
          : { type: POLICY_CONDITIONS.Valid, status: 'False', reason: 'Invalid', message: summarize(problems) },
        { type: POLICY_CONDITIONS.Published, ...published },
      ],
      resource.metadata.generation,
      input.nowMs,
    );
    const policyVersion = publishedContent === undefined ? undefined : contentHash(publishedContent);
    statuses.set(name, {
      ...(resource.metadata.generation === undefined ? {} : { observedGeneration: resource.metadata.generation }),
      ...(policyVersion === undefined ? {} : { policyVersion }),
      conditions,
    });
    const wasInvalid = previous?.conditions?.some((condition) => condition.type === POLICY_CONDITIONS.Valid && condition.status === 'False') === true;
    if (!valid && !wasInvalid) events.push({ policy: name, type: 'Warning', reason: 'InvalidPolicy', message: summarize(problems) });
    if (upToDate && previous?.policyVersion !== policyVersion) {
      events.push({ policy: name, type: 'Normal', reason: 'Published', message: `published version ${policyVersion ?? ''} at ${rfc3339(input.nowMs)}` });
    }
  }
  return { files, contentHash: directoryHash(files), statuses, events };
}
