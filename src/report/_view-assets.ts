// Style and behaviour of the report view, shared by the HTML file (inlined, allowed by a CSP hash) and the
// console (served as files). The script only toggles classes and `hidden`: it never writes markup, so
// nothing it reads from the page can become markup.

/** The report view's style sheet: light and dark (system setting, or the toggle), narrow screens. */
export const REPORT_CSS = `
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#ffffff;--bg2:#f6f8fa;--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--accent:#0969da;--bar:#0969da;--b:#8250df}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--bg:#0d1117;--bg2:#151b23;--ok:#3fb950;--bad:#f85149;--warn:#d29922;--accent:#4493f8;--bar:#4493f8;--b:#ab7df8}}
:root[data-theme=dark]{--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--bg:#0d1117;--bg2:#151b23;--ok:#3fb950;--bad:#f85149;--warn:#d29922;--accent:#4493f8;--bar:#4493f8;--b:#ab7df8}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;padding:20px;color:var(--fg);background:var(--bg)}
.rv{max-width:1400px;margin:0 auto}
.rv-head{display:flex;align-items:center;gap:12px;justify-content:space-between}
h1{font-size:20px;margin:0 0 4px;overflow-wrap:anywhere}
.meta,.muted{color:var(--muted)}.meta{margin:0 0 14px;overflow-wrap:anywhere}
button,select,input{font:inherit;color:inherit;background:var(--bg2);border:1px solid var(--line);border-radius:6px;padding:4px 10px}
button{cursor:pointer}
:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:10px;margin:0 0 14px}
.card{border:1px solid var(--line);border-radius:8px;padding:10px 12px;background:var(--bg2)}
.card b{display:block;font-size:22px;line-height:1.2}.card span{display:block}.card small{display:block;color:var(--muted)}
.card.ok b{color:var(--ok)}.card.bad b{color:var(--bad)}.card.warn b{color:var(--warn)}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;color:#fff;background:var(--bad);white-space:nowrap}
.badge.pass{background:var(--ok)}.badge.errored{background:var(--warn)}
.byverdict{display:flex;flex-wrap:wrap;gap:6px;margin:0 0 14px}
.chip{border-radius:14px;padding:2px 8px}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,460px),1fr));gap:12px;margin:0 0 14px}
.chart{margin:0;border:1px solid var(--line);border-radius:8px;padding:8px;background:var(--bg2)}
.chart svg{max-width:680px;display:block}.chart figcaption{font-weight:600;margin:0 0 4px}
.chart text{fill:var(--fg);font-size:12px}.chart .track{fill:var(--line);opacity:.45}.chart .bar{fill:var(--bar)}
.chart .bar.pass{fill:var(--ok)}.chart .bar.fail{fill:var(--bad)}.chart .bar.b{fill:var(--b)}.chart .ci{stroke:var(--fg);stroke-width:1.5}
.filters{display:flex;flex-wrap:wrap;gap:10px;align-items:center;margin:6px 0 10px}
.filters label{display:flex;gap:6px;align-items:center}.f-count{color:var(--muted)}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%}caption{text-align:left;font-weight:600;padding:4px 0}
th,td{border-bottom:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}
th{background:var(--bg2);font-weight:600}
td.rate small,td small{display:block;color:var(--muted)}
tr.fail td.rate{color:var(--bad);font-weight:600}tr.ok td.rate{color:var(--ok)}
table.bytag{margin:0 0 14px;max-width:720px}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
code{overflow-wrap:anywhere}
pre{white-space:pre-wrap;word-break:break-word;background:var(--bg2);border:1px solid var(--line);padding:6px 8px;border-radius:6px;margin:4px 0;max-height:320px;overflow:auto}
pre.err,.err{color:var(--bad)}pre.err{border-color:var(--bad)}
.tags{margin-top:2px}.tag{display:inline-block;font-size:11px;border:1px solid var(--line);border-radius:8px;padding:0 6px;margin:0 4px 0 0;color:var(--muted)}
tr.detail>td{background:var(--bg2)}
details.sample{border:1px solid var(--line);border-radius:8px;padding:6px 10px;margin:6px 0;background:var(--bg)}
details.sample>summary{cursor:pointer}
.facts{color:var(--muted)}.reason{margin:6px 0}
.trace-link{color:var(--accent)}
.waterfall{display:flex;flex-direction:column;gap:2px;margin:6px 0}
.wf-head{display:grid;grid-template-columns:minmax(120px,28%) 1fr 72px;gap:8px;align-items:center;cursor:default}
details>summary.wf-head{cursor:pointer;list-style:none}details>summary.wf-head::-webkit-details-marker{display:none}
.wf-name{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.l1 .wf-name{padding-left:14px}.l2 .wf-name{padding-left:28px}
.turn .wf-name{font-weight:600}
.wf-track{position:relative;height:12px;background:var(--line);border-radius:3px;opacity:.9}
.wf-bar{position:absolute;top:0;bottom:0;border-radius:3px;background:var(--muted)}
.llm .wf-bar{background:var(--accent)}.tool .wf-bar{background:var(--b)}.is-error .wf-bar{background:var(--bad)}
.wf-dur{text-align:right;color:var(--muted);font-variant-numeric:tabular-nums}
.wf-body{padding:2px 0 6px 28px}.k{font-size:11px;text-transform:uppercase;color:var(--muted);margin-top:4px}
.delta.up{color:var(--ok)}.delta.down{color:var(--bad)}
tr.sig td{background:color-mix(in srgb,var(--warn) 12%,transparent)}.sig-mark{color:var(--warn);font-weight:600;white-space:nowrap}
[hidden]{display:none!important}
@media (max-width:720px){
 body{padding:10px}
 table.cases thead,table.bytag thead{display:none}
 table.cases tr.case,table.cases tr.cmp-row,table.bytag tr{display:block;border-bottom:2px solid var(--line);padding:4px 0}
 table.cases tr.case td,table.cases tr.cmp-row td,table.bytag td{display:flex;flex-wrap:wrap;gap:8px;border:0;padding:2px 4px}
 table.cases tr.case td::before,table.cases tr.cmp-row td::before,table.bytag td::before{content:attr(data-label);flex:0 0 86px;color:var(--muted)}
 tr.detail,tr.detail>td{display:block}
 .wf-head{grid-template-columns:minmax(90px,40%) 1fr 56px}
 .wf-body{padding-left:8px}
}
`;

/**
 * The report view's behaviour, as plain browser JavaScript: `window.runspecReport.init(root)` wires every
 * `.rv` section under root (filters, verdict and tag chips, expanding rows, theme toggle).
 */
export const REPORT_SCRIPT = `(function(){
'use strict';
function wire(section){
  if(section.dataset.wired)return;section.dataset.wired='1';
  var rows=[].slice.call(section.querySelectorAll('tr.case'));
  var fv=section.querySelector('.f-verdict'),ft=section.querySelector('.f-tag'),fx=section.querySelector('.f-text'),count=section.querySelector('.f-count');
  function apply(){
    var v=fv?fv.value:'',t=ft?ft.value:'',x=fx?fx.value.trim().toLowerCase():'';var shown=0;
    rows.forEach(function(r){
      var verdicts=(r.dataset.verdict||'').split(' '),tags=(r.dataset.tags||'').split(' ');
      var ok=(!v||(v==='!pass'?verdicts.some(function(c){return c!=='pass';}):verdicts.indexOf(v)>=0))&&(!t||tags.indexOf(t)>=0)&&(!x||(r.dataset.text||'').indexOf(x)>=0);
      r.hidden=!ok;if(ok)shown++;
      var d=r.nextElementSibling;if(d&&d.classList.contains('detail')){var b=r.querySelector('button.expand');d.hidden=!ok||!b||b.getAttribute('aria-expanded')!=='true';}
    });
    if(count)count.textContent=shown+' of '+rows.length+' cases';
  }
  [fv,ft].forEach(function(el){if(el)el.addEventListener('change',apply);});
  if(fx)fx.addEventListener('input',apply);
  section.addEventListener('click',function(e){
    var el=e.target&&e.target.closest?e.target.closest('button'):null;if(!el||!section.contains(el))return;
    if(el.classList.contains('expand')){
      var open=el.getAttribute('aria-expanded')!=='true';el.setAttribute('aria-expanded',String(open));
      var d=document.getElementById(el.getAttribute('aria-controls'));if(d)d.hidden=!open;
    }else if(el.dataset.filterVerdict!==undefined&&fv){fv.value=fv.value===el.dataset.filterVerdict?'':el.dataset.filterVerdict;apply();}
    else if(el.dataset.filterTag!==undefined&&ft){ft.value=ft.value===el.dataset.filterTag?'':el.dataset.filterTag;apply();}
    else if(el.classList.contains('theme-toggle')){
      var root=document.documentElement,dark=root.dataset.theme?root.dataset.theme==='dark':window.matchMedia('(prefers-color-scheme: dark)').matches;
      root.dataset.theme=dark?'light':'dark';
    }
  });
  apply();
}
window.runspecReport={init:function(root){[].slice.call((root||document).querySelectorAll('.rv')).forEach(wire);}};
})();`;
