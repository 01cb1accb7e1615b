/**
 * The HTML report: one self-contained page (inline CSS and script, no network request, no external
 * asset; a Content-Security-Policy forbids any). A servers × checks matrix, red where a check failed,
 * with filters (level, section, status, era); each failure links to its details: the requirement, its
 * spec source, expected and actual, and the server's stderr when the report has it.
 *
 * Everything a server or a user's list supplied (names, messages, values, stderr) is HTML-escaped here,
 * with invisible and direction-changing characters spelt visibly, so it is shown and never obeyed. The
 * page is complete without its script, which only filters and recounts.
 */
import { replaceUnsafe, visibleEscape } from '../../src/terminal/sanitize.js';
import { SECTIONS, type Status } from '../server/check.js';
import { rootCauses } from '../server/report/causes.js';
import { callToolsLine, skipReasonLine, tally, tallyLine } from '../server/report/tally.js';
import { type BatchReport, type BatchServer, eraOf, type JsonCheck } from './report.js';

function esc(value: unknown): string {
  const text = replaceUnsafe(String(value ?? ''), 'block', visibleEscape);
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const MARK: Record<Status, string> = { pass: '✔', fail: '✘', warn: '!', skip: '–' };
const STATUSES: readonly Status[] = ['pass', 'fail', 'warn', 'skip'];
const LEVELS = ['MUST', 'SHOULD', 'MAY'] as const;

interface Column {
  key: string;
  id: string;
  era: string;
  section: string;
  level: string;
  title: string;
}

function columnsOf(report: BatchReport): Column[] {
  const columns = new Map<string, Column>();
  for (const server of report.servers) {
    for (const check of server.report?.checks ?? []) {
      const era = eraOf(check);
      const key = `${check.id}|${era}`;
      if (!columns.has(key)) {
        columns.set(key, {
          key,
          id: check.id,
          era,
          section: check.section,
          level: check.level,
          title: check.title,
        });
      }
    }
  }
  const order = Object.keys(report.checks);
  const rank = (id: string) => {
    const at = order.indexOf(id);
    return at === -1 ? order.length : at;
  };
  return [...columns.values()].sort(
    (a, b) =>
      SECTIONS.indexOf(a.section as never) - SECTIONS.indexOf(b.section as never) ||
      rank(a.id) - rank(b.id) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) ||
      (a.era < b.era ? -1 : a.era > b.era ? 1 : 0),
  );
}

function checksByColumn(server: BatchServer): Map<string, JsonCheck> {
  return new Map((server.report?.checks ?? []).map((check) => [`${check.id}|${eraOf(check)}`, check]));
}

const anchor = (serverIndex: number, column: number) => `d-${serverIndex}-${column}`;

function counts(checks: Iterable<JsonCheck>): Record<Status, number> {
  const result: Record<Status, number> = { pass: 0, fail: 0, warn: 0, skip: 0 };
  for (const check of checks) result[check.status]++;
  return result;
}

function countCells(count: Record<Status, number>): string {
  return STATUSES.map(
    (status) => `<span class="n s-${status}" data-count="${status}">${count[status]}</span>`,
  ).join(' ');
}

function option(value: string, label = value): string {
  return `<option value="${esc(value)}">${esc(label)}</option>`;
}

function matrix(report: BatchReport, columns: Column[]): string {
  const head = columns
    .map(
      (column) =>
        `<th class="col" data-col="${esc(column.key)}" data-level="${esc(column.level)}" data-section="${esc(column.section)}" data-era="${esc(column.era)}" title="${esc(`${column.id} [${column.level}] ${column.era}: ${column.title}`)}"><span>${esc(column.id)}${column.era === 'legacy' ? '' : ` · ${esc(column.era)}`}</span></th>`,
    )
    .join('');
  const rows = report.servers.map((server, serverIndex) => {
    const byColumn = checksByColumn(server);
    const cells = columns
      .map((column, columnIndex) => {
        const check = byColumn.get(column.key);
        const data = `data-col="${esc(column.key)}" data-level="${esc(column.level)}" data-section="${esc(column.section)}" data-era="${esc(column.era)}"`;
        if (!check) return `<td class="cell none" ${data}></td>`;
        const tip = esc(
          `${server.name}: ${check.id} ${check.status}${check.message ? ` — ${check.message}` : ''}`,
        );
        const mark =
          check.status === 'fail' || check.status === 'warn'
            ? `<a href="#${anchor(serverIndex, columnIndex)}">${MARK[check.status]}</a>`
            : MARK[check.status];
        return `<td class="cell s-${esc(check.status)}" data-status="${esc(check.status)}" ${data} title="${tip}">${mark}</td>`;
      })
      .join('');
    return `<tr class="server" data-server-status="${esc(server.status)}"><th scope="row"><a href="#srv-${serverIndex}">${esc(server.name)}</a></th><td class="st st-${esc(server.status)}">${esc(server.status)}</td><td class="counts">${countCells(counts(byColumn.values()))}</td>${cells}</tr>`;
  });
  return `<div class="wrap"><table id="matrix"><thead><tr><th>server</th><th>verdict</th><th>pass fail warn skip</th>${head}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

function details(report: BatchReport, columns: Column[]): string {
  return report.servers
    .map((server, serverIndex) => {
      const byColumn = checksByColumn(server);
      const target = server.target.command ?? server.target.url ?? '';
      const info = server.report?.server;
      const lines = [
        `<p>${esc(server.target.transport)}: <code>${esc(target)}</code> (from ${esc(server.origin)})</p>`,
        info
          ? `<p>server ${esc(info.name)} ${esc(info.version)}, protocol ${esc(info.protocolVersion)}</p>`
          : '',
        server.reason ? `<p class="reason">${esc(server.reason)}</p>` : '',
        ...tallyParagraphs(server.report?.checks),
      ];
      // Failures sharing one cause: the root's block lists the others, theirs point to the root.
      const checks = server.report?.checks ?? [];
      const causes = rootCauses(checks);
      const columnOf = new Map(
        columns.flatMap((column, columnIndex) => {
          const check = byColumn.get(column.key);
          return check ? [[check, columnIndex] as const] : [];
        }),
      );
      const link = (check: JsonCheck) =>
        `<a href="#${anchor(serverIndex, columnOf.get(check) ?? -1)}">${esc(check.id)}</a> [${esc(check.level)}]`;
      const rootOf = new Map<JsonCheck, JsonCheck>();
      const alsoOf = new Map<JsonCheck, { cause: string; also: JsonCheck[] }>();
      for (const cause of causes) {
        const root = checks[cause.root]!;
        const also = cause.consequences.map((index) => checks[index]!);
        for (const check of also) rootOf.set(check, root);
        if (also.length > 0) alsoOf.set(root, { cause: cause.cause, also });
      }
      const problems = columns.flatMap((column, columnIndex) => {
        const check = byColumn.get(column.key);
        if (!check || (check.status !== 'fail' && check.status !== 'warn')) return [];
        const catalogue = report.checks[check.id];
        const row = (label: string, value: string | undefined, pre = false) =>
          value === undefined
            ? ''
            : `<dt>${label}</dt><dd>${pre ? `<pre>${esc(value)}</pre>` : esc(value)}</dd>`;
        const head = `<div class="problem p-${esc(check.status)}" id="${anchor(serverIndex, columnIndex)}" data-level="${esc(check.level)}" data-section="${esc(check.section)}" data-era="${esc(column.era)}" data-status="${esc(check.status)}"><h4>${MARK[check.status]} ${esc(check.id)} [${esc(check.level)}] ${esc(check.title)}${column.era === 'legacy' ? '' : ` · ${esc(column.era)}`}</h4>`;
        const root = rootOf.get(check);
        if (root) return [`${head}<p class="folded">same cause as ${link(root)}, reported there</p></div>`];
        const folded = alsoOf.get(check);
        const cause = folded
          ? `<dt>cause</dt><dd><pre>${esc(folded.cause)}</pre></dd><dt>the same cause also failed</dt><dd>${folded.also.map(link).join(', ')}</dd>`
          : '';
        return [
          head +
            `<dl>${row('message', check.message)}${row('requirement', catalogue?.requirement)}${row('source', catalogue?.source)}${row('expected', check.expected, true)}${row('actual', check.actual, true)}${cause}</dl></div>`,
        ];
      });
      const stderr =
        typeof info?.stderr === 'string' && info.stderr !== ''
          ? `<h4>server stderr</h4><pre class="stderr">${esc(info.stderr)}</pre>`
          : '';
      const open = server.status === 'pass' ? '' : ' open';
      return `<details class="server-detail" id="srv-${serverIndex}"${open}><summary>${esc(server.name)} — ${esc(server.status)}</summary>${lines.join('')}${problems.join('')}${stderr}</details>`;
    })
    .join('\n');
}

/** A server's tally: judged, passed, failed, skipped; one line per skip reason; what --call-tools adds. */
function tallyParagraphs(checks: readonly JsonCheck[] | undefined): string[] {
  if (!checks) return [];
  const t = tally(checks);
  const callTools = callToolsLine(t);
  const reasons = t.skipReasons.map((reason) => `<li>${esc(skipReasonLine(reason))}</li>`).join('');
  return [
    `<p class="tally">${esc(tallyLine(t))}</p>`,
    callTools ? `<p class="call-tools">${esc(callTools)}</p>` : '',
    reasons === '' ? '' : `<ul class="skip-reasons">${reasons}</ul>`,
  ];
}

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em;margin:0 0 .3em}
.wrap{overflow:auto;max-height:75vh;border:1px solid #ccc}
table{border-collapse:collapse}
th,td{border:1px solid #e3e3e3;padding:2px 4px;text-align:center;white-space:nowrap}
tbody th{text-align:left;position:sticky;left:0;background:#fafafa}
thead th{position:sticky;top:0;background:#fafafa}
th.col{height:11em;vertical-align:bottom;padding:0}
th.col span{writing-mode:vertical-rl;transform:rotate(180deg);display:inline-block;padding:4px 0;font-weight:normal;font-size:12px}
td.cell{width:1.3em;font-size:12px}
.s-pass{background:#dff3e1;color:#1b6b2a}.s-fail{background:#f8d4d4;color:#a10000;font-weight:bold}
.s-warn{background:#fbefc9;color:#7a5b00}.s-skip{background:#f1f1f1;color:#888}
td.cell a{color:inherit;text-decoration:none}
.st-pass{color:#1b6b2a}.st-fail,.st-error{color:#a10000;font-weight:bold}.st-not-runnable,.st-interrupted{color:#7a5b00}
.n{display:inline-block;min-width:1.6em;border-radius:3px;padding:0 2px}
.hidden{display:none}.dim{opacity:.15}
form{margin:.8em 0}label{margin-right:1em}
.problem{border-left:4px solid #a10000;padding:.2em .8em;margin:.6em 0;background:#fff7f7}
.problem.p-warn{border-color:#c9a000;background:#fffbef}
dt{font-weight:bold;float:left;clear:left;width:7em}dd{margin-left:8em}
pre{white-space:pre-wrap;margin:0;font-size:12px}
.stderr{background:#f4f4f4;padding:.5em;max-height:20em;overflow:auto}
summary{cursor:pointer;font-weight:bold;margin-top:.4em}
`;

/** Filters hide columns (level, section, era) and, by status, the cells and servers without one. */
const SCRIPT = `
(function(){
  var form=document.getElementById('filters');
  function val(n){return form.elements[n].value;}
  function apply(){
    var level=val('level'),section=val('section'),status=val('status'),era=val('era');
    function keep(el){return (level===''||el.dataset.level===level)&&(section===''||el.dataset.section===section)&&(era===''||el.dataset.era===era);}
    document.querySelectorAll('th.col').forEach(function(th){th.classList.toggle('hidden',!keep(th));});
    var total={pass:0,fail:0,warn:0,skip:0},servers=0;
    document.querySelectorAll('tr.server').forEach(function(row){
      var c={pass:0,fail:0,warn:0,skip:0};
      row.querySelectorAll('td.cell').forEach(function(td){
        var shown=keep(td);
        td.classList.toggle('hidden',!shown);
        var s=td.dataset.status;
        td.classList.toggle('dim',shown&&status!==''&&s!==status);
        if(shown&&s){c[s]++;}
      });
      row.querySelectorAll('[data-count]').forEach(function(n){n.textContent=c[n.dataset.count];});
      var visible=status===''||c[status]>0;
      row.classList.toggle('hidden',!visible);
      if(visible){servers++;for(var k in c){total[k]+=c[k];}}
    });
    document.querySelectorAll('#totals [data-count]').forEach(function(n){n.textContent=total[n.dataset.count];});
    document.getElementById('shown-servers').textContent=servers;
    document.querySelectorAll('.problem').forEach(function(p){p.classList.toggle('hidden',!(keep(p)&&(status===''||p.dataset.status===status)));});
  }
  form.addEventListener('change',apply);
  apply();
})();
`;

export function renderHtml(report: BatchReport): string {
  const columns = columnsOf(report);
  const s = report.summary.servers;
  const eras = [...new Set(columns.map((column) => column.era))].sort();
  const sections = SECTIONS.filter((section) => columns.some((column) => column.section === section));
  const all = report.servers.flatMap((server) => server.report?.checks ?? []);
  const overview = `${s.total} server${s.total === 1 ? '' : 's'}: ${s.pass} pass, ${s.fail} fail, ${s.error} error, ${s['not-runnable']} not runnable, ${s.interrupted} interrupted`;
  const eraSummary = Object.entries(report.summary.eras)
    .map(([era, c]) => `${esc(era)}: ${c.pass} pass, ${c.fail} fail, ${c.warn} warn, ${c.skip} skip`)
    .join('; ');
  const shard = report.shard ? ` · shard ${report.shard.index}/${report.shard.count}` : '';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>furfly conformance — ${esc(overview)}</title>
<style>${STYLE}</style></head>
<body>
<h1>furfly conformance</h1>
<p id="overview">${esc(overview)} · --fail-on ${esc(report.failOn)}${esc(shard)}${report.interrupted ? ' · <strong>interrupted</strong>' : ''} · started ${esc(report.startedAt)}, ${(report.durationMs / 1000).toFixed(1)} s · furfly ${esc(report.tool.version)}</p>
<p id="eras">by era: ${eraSummary || 'no checks ran'}</p>
<p id="tally">${esc(tallyLine(tally(all)))}${callToolsLine(tally(all)) ? ` ${esc(callToolsLine(tally(all)))}` : ''}</p>
<form id="filters">
<label>level <select name="level">${option('', 'all')}${LEVELS.map((l) => option(l)).join('')}</select></label>
<label>section <select name="section">${option('', 'all')}${sections.map((x) => option(x)).join('')}</select></label>
<label>status <select name="status">${option('', 'all')}${STATUSES.map((x) => option(x)).join('')}</select></label>
<label>era <select name="era">${option('', 'all')}${eras.map((x) => option(x)).join('')}</select></label>
</form>
<p id="totals"><span id="shown-servers">${report.servers.length}</span> servers shown; checks: ${countCells(counts(all))}</p>
${matrix(report, columns)}
<h2>Details</h2>
${details(report, columns)}
<script>${SCRIPT}</script>
</body></html>
`;
}
