import { detectAll } from './dist/domain/detect/index.js';
for (const t of process.argv.slice(2)) console.log(t, JSON.stringify(detectAll(t, { language: 'en' }).map(d => [d.type, d.value, d.confidence, d.detector])));
