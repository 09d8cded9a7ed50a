// Worker-thread entry for detection of large inputs, so one 1 MB request never stalls the small
// requests queued behind it on the event loop. Custom patterns arrive raw and are compiled here
// (RE2 objects cannot cross threads); compiled sets are cached by their JSON form.
import { compileCustomPatterns, detectAll, type CompiledPattern } from '../domain/detect/index.js';
import type { CustomPattern, Detection } from '../domain/types.js';

export interface DetectTask {
  readonly text: string;
  readonly language?: string | undefined;
  readonly patterns: readonly CustomPattern[];
}

const compiledCache = new Map<string, CompiledPattern[]>();

function compiled(patterns: readonly CustomPattern[]): CompiledPattern[] {
  if (patterns.length === 0) return [];
  const key = JSON.stringify(patterns);
  let set = compiledCache.get(key);
  if (set === undefined) {
    set = compileCustomPatterns(patterns);
    if (compiledCache.size > 256) compiledCache.clear();
    compiledCache.set(key, set);
  }
  return set;
}

export default function runDetectTask(task: DetectTask): Detection[] {
  return detectAll(task.text, {
    customPatterns: compiled(task.patterns),
    ...(task.language !== undefined ? { language: task.language } : {}),
  });
}
