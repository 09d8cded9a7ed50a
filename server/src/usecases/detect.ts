// The detect use case: the sequence of /v1/detect and of each /v1/batch/detect item, written
// once: plan detection (NER sidecar, fallback under the named policy), apply the policy's
// detection rules, then detect and select inline or on a worker (usecases/executor.ts: a large
// text's answer is serialized on the worker), and record the audit facts.
import type { CompiledPattern } from '../domain/detect/index.js';
import { nonIdentifyingFor } from '../domain/detect/identifying.js';
import type { CustomPattern } from '../domain/types.js';
import { selectDetections, type DetectedEntity } from '../services/detect.js';
import { applyPolicyDetection, planDetection, type DetectorName, type DetectorPlan, type NerDeps } from '../services/ner.js';
import type { LoadedPolicy } from '../services/policies.js';
import type { Executor } from './executor.js';
import type { UseCaseCall } from './transform.js';
import type { JsonText } from '../services/json-text.js';

export interface DetectDeps {
  readonly executor: Executor;
  readonly ner: NerDeps;
  readonly defaultLanguage: string;
}

export interface DetectCommand {
  readonly text: string;
  readonly language?: string | undefined;
  /** The named policy (its patterns, ner_labels and required_for apply); absent: the raw built-in set. */
  readonly policy?: LoadedPolicy | undefined;
  /** The policy's patterns plus the request's (routes/common.ts patternSet). */
  readonly patterns: { readonly compiled: readonly CompiledPattern[]; readonly raw: readonly CustomPattern[] };
  readonly detectors?: readonly DetectorName[] | undefined;
  readonly threshold: number;
  readonly wanted?: readonly string[] | undefined;
  readonly withValues: boolean;
}

/** The entities of one text: objects (inline) or their JSON (serialized on a worker), with the plan that found them. */
export type DetectDone = { readonly plan: DetectorPlan; readonly count: number; readonly typeCounts: Record<string, number> } & (
  | { readonly entities: DetectedEntity[]; readonly entitiesJson?: undefined }
  | { readonly entities?: undefined; readonly entitiesJson: JsonText }
);

export class DetectUseCase {
  readonly #deps: DetectDeps;

  constructor(deps: DetectDeps) {
    this.#deps = deps;
  }

  /** Detect one text (`worker`: an item of a request that is large as a whole runs on a worker whatever its size). */
  async run(call: UseCaseCall, command: DetectCommand, worker = false): Promise<DetectDone> {
    const language = command.language ?? this.#deps.defaultLanguage;
    const loaded = command.policy;
    const plan = await planDetection(this.#deps.ner, command.text, language, command.detectors, loaded?.compiled.policy, call.log);
    const ner = loaded !== undefined ? applyPolicyDetection(loaded.compiled.policy, plan) : plan.ner;
    const nonIdentifying = nonIdentifyingFor(loaded?.compiled.policy);
    const selection = { useRegex: plan.useRegex, ner, threshold: command.threshold, wanted: command.wanted, withValues: command.withValues, nonIdentifying };
    const executor = this.#deps.executor;
    const offloaded = await executor.detectEntities({ text: command.text, language, raw: command.patterns.raw }, selection, worker);
    let done: DetectDone;
    if (offloaded !== undefined) done = { plan, ...offloaded };
    else {
      const regex = await executor.detect(command.text, language, command.patterns);
      const { entities, typeCounts } = selectDetections(command.text, regex, selection);
      done = { plan, entities, count: entities.length, typeCounts };
    }
    call.facts({ entity_types: Object.keys(done.typeCounts), type_counts: done.typeCounts, entity_count: done.count });
    return done;
  }
}
