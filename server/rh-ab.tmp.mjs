const load = async (d) => ({ r: await import(d + '/domain/rehydrate.js'), p: await import(d + '/domain/policy/index.js'), c: await import('@veil/common'), rep: await import(d + '/domain/repair/index.js') });
const base = await load('/tmp/wt-base/server/dist'), neu = await load('/work/wt-red/server/dist');
const entries = [{ id: 'e_001', type: 'email', cap: '0123456789ab', value: 'jane@example.com', mode: 'full' }];
const tok = '{{email:e_001:0123456789ab}}';
let out = ''; while (out.length < 1024) out += `Sure, I wrote to ${tok} about the release notes at docs.example.org/v2 and the meeting. `;
function mk(m) { const policy = new m.p.CompiledPolicy(m.c.DEFAULT_POLICY); const map = m.r.indexEntries(entries); return () => m.r.rehydrateText({ output: out, entries: map, policy, language: 'en', caller: {}, channel: 'user_output', scan: m.rep.findTokensLenient }); }
const fb = mk(base), fn = mk(neu);
const t = { b: [], n: [] };
for (let r = 0; r < 60; r++) { let s = performance.now(); for (let i = 0; i < 200; i++) fb(); t.b.push(performance.now() - s); s = performance.now(); for (let i = 0; i < 200; i++) fn(); t.n.push(performance.now() - s); }
const med = (l) => [...l].sort((a, b) => a - b)[l.length >> 1] / 200 * 1000;
console.log(`rehydrateText 1 KB (${out.match(/\{\{/g).length} tokens): base ${med(t.b).toFixed(1)} µs, new ${med(t.n).toFixed(1)} µs`);
