// The API reference page (GET /openapi.html): the OpenAPI document rendered server-side into one
// self-contained HTML page (inline CSS, no script, nothing fetched from anywhere), so it works
// offline and under a strict Content-Security-Policy. Every text from the document is escaped.
type Json = Record<string, unknown>;

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** A document field as text: strings as they are, anything else (absent) as ''. */
function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

function code(value: unknown): string {
  return `<pre>${escape(JSON.stringify(value, null, 2))}</pre>`;
}

function mediaList(content: unknown): string {
  if (typeof content !== 'object' || content === null) return '';
  return Object.entries(content as Record<string, Json>)
    .map(
      ([type, media]) =>
        `<div class="media"><span class="type">${escape(type)}</span>${typeof media.description === 'string' ? `<p>${escape(media.description)}</p>` : ''}<details><summary>schema</summary>${code(media.schema)}</details></div>`,
    )
    .join('');
}

function operationHtml(method: string, path: string, operation: Json): string {
  const responses = Object.entries((operation.responses ?? {}) as Record<string, Json>)
    .map(([status, response]) => `<tr><td>${escape(status)}</td><td>${escape(text(response.description))}${mediaList(response.content)}</td></tr>`)
    .join('');
  const body = operation.requestBody as Json | undefined;
  const parameters = (operation.parameters ?? []) as Json[];
  return `<section class="op" id="${escape(text(operation.operationId))}">
<h3><span class="method ${escape(method)}">${escape(method.toUpperCase())}</span> <code>${escape(path)}</code></h3>
<p>${escape(text(operation.summary))}</p>
<p class="scope">${escape(text(operation.description))}</p>
${parameters.map((parameter) => `<p>Header <code>${escape(text(parameter.name))}</code>: ${escape(text(parameter.description))}</p>`).join('')}
${body !== undefined ? `<h4>Request body${body.required === true ? '' : ' (optional)'}</h4>${mediaList(body.content)}` : ''}
<h4>Responses</h4><table><tr><th>status</th><th>meaning</th></tr>${responses}</table>
</section>`;
}

export function renderReference(document: Json): string {
  const info = document.info as Json;
  const paths = document.paths as Record<string, Record<string, Json>>;
  const byTag = new Map<string, string[]>();
  const index: string[] = [];
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const tag = ((operation.tags as string[] | undefined) ?? ['other'])[0]!;
      const list = byTag.get(tag) ?? [];
      list.push(operationHtml(method, path, operation));
      byTag.set(tag, list);
      index.push(`<li><a href="#${escape(text(operation.operationId))}">${escape(method.toUpperCase())} ${escape(path)}</a></li>`);
    }
  }
  const schemes = Object.entries(((document.components as Json).securitySchemes ?? {}) as Record<string, Json>)
    .map(([name, scheme]) => `<li><code>${escape(name)}</code>: ${escape(text(scheme.description))}</li>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(text(info.title))} ${escape(text(info.version))}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;display:flex;color:#1d2330}
nav{width:300px;flex:none;height:100vh;overflow:auto;position:sticky;top:0;background:#f4f5f7;padding:1em;box-sizing:border-box;font-size:13px}
nav ul{list-style:none;padding:0}main{padding:1em 2em;max-width:1000px}
.op{border-top:1px solid #ddd;padding:.5em 0}.method{font-weight:bold;padding:.1em .4em;border-radius:3px;color:#fff;background:#555}
.post{background:#2f7d32}.get{background:#1565c0}.delete{background:#b71c1c}.scope{color:#555}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:.3em .5em;vertical-align:top;text-align:left}
pre{background:#f6f8fa;padding:.5em;overflow:auto;font-size:12px}.type{font-family:monospace;font-weight:bold}
</style></head><body>
<nav><strong>${escape(text(info.title))} ${escape(text(info.version))}</strong><ul>${index.join('')}</ul></nav>
<main><h1>${escape(text(info.title))} <small>${escape(text(info.version))}</small></h1>
<p>${escape(text(info.description))}</p>
<p>OpenAPI ${escape(text(document.openapi))} document: <a href="openapi.json">openapi.json</a>.</p>
<h2>Authentication</h2><ul>${schemes}</ul>
${[...byTag.entries()].map(([tag, operations]) => `<h2>${escape(tag)}</h2>${operations.join('\n')}`).join('\n')}
</main></body></html>
`;
}
