// The string formats of the configuration schema (config/validator.ts), in a module of their own:
// the validator generated ahead of time (scripts/bundle.mjs) imports them from here.

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function isRedisUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'redis:' || url.protocol === 'rediss:';
  } catch {
    return false;
  }
}

export const CONFIG_FORMATS = {
  'http-url': { type: 'string', validate: isHttpUrl },
  'redis-url': { type: 'string', validate: isRedisUrl },
} as const;
