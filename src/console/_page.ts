// The console page: a static shell, its style and its script. The script builds every element with
// textContent (data never becomes markup); the only markup it inserts is the report view the server
// rendered with every value escaped. The session token arrives in the URL fragment and goes out as a header.
import { REPORT_CSS, REPORT_SCRIPT } from '../report/_view-assets.js';

export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>runspec-eval console</title>
<link rel="stylesheet" href="/app.css">
<script src="/app.js" defer></script>
</head>
<body>
<header class="top">
<strong class="brand">runspec-eval</strong>
<nav class="tabs" role="tablist" aria-label="console sections">
<button type="button" role="tab" id="tab-btn-suites" aria-controls="tab-suites" aria-selected="true">Suites</button>
<button type="button" role="tab" id="tab-btn-run" aria-controls="tab-run" aria-selected="false">Run</button>
<button type="button" role="tab" id="tab-btn-reports" aria-controls="tab-reports" aria-selected="false">Reports</button>
<button type="button" role="tab" id="tab-btn-production" aria-controls="tab-production" aria-selected="false">Production</button>
</nav>
<button type="button" class="theme-toggle" id="theme" aria-label="switch light/dark">Light/dark</button>
</header>
<p id="status" class="status" role="status" aria-live="polite"></p>
<main>
<section id="tab-suites" role="tabpanel" aria-labelledby="tab-btn-suites">
<div class="split">
<div class="pane">
<h2>Suites</h2>
<div class="table-wrap"><table id="suites-table" class="list"><thead><tr><th>Suite</th><th>Source</th><th>File</th><th>Cases</th><th></th></tr></thead><tbody></tbody></table></div>
<form id="new-suite-form" class="row"><label>New suite <input id="new-suite-name" placeholder="name" autocomplete="off"></label><button type="submit">Create</button></form>
</div>
<div class="pane" id="editor" hidden>
<h2 id="editor-title"></h2>
<p id="editor-source" class="muted"></p>
<div class="ed"><pre class="gutter" id="gutter" aria-hidden="true"></pre><textarea id="editor-text" spellcheck="false" autocapitalize="off" aria-label="suite as [[eval]] TOML" aria-describedby="editor-errors"></textarea></div>
<ul id="editor-errors" class="errors" aria-live="polite"></ul>
<div class="row"><button type="button" id="save">Save</button><button type="button" id="delete">Delete</button><button type="button" id="run-this">Run this suite</button></div>
</div>
</div>
</section>
<section id="tab-run" role="tabpanel" aria-labelledby="tab-btn-run" hidden>
<h2>Run evals</h2>
<form id="run-form" class="grid">
<label>Suite <select id="run-suite" required></select></label>
<label>Provider / profile <input id="run-provider" list="providers" autocomplete="off"><datalist id="providers"></datalist></label>
<label>Model <input id="run-model" autocomplete="off"></label>
<label>Samples per case <input id="run-samples" type="number" min="1" max="100" placeholder="case default"></label>
<label>Threshold <input id="run-threshold" type="number" min="0" max="1" step="0.05" placeholder="1"></label>
<label>Tool mode <select id="run-toolmode"><option value="">configured</option><option>dedup</option><option>per_host</option><option>search</option></select></label>
<label class="check"><input id="run-validate" type="checkbox"> Validate args</label>
<label class="check"><input id="run-telemetry" type="checkbox"> Emit telemetry</label>
<div class="row"><button type="submit" id="run-start">Run evals</button><button type="button" id="run-cancel" disabled>Cancel</button></div>
</form>
<div id="run-progress-box" hidden>
<progress id="run-progress" max="1" value="0"></progress>
<p id="run-state" aria-live="polite"></p>
<button type="button" id="run-open" hidden>Open report</button>
</div>
</section>
<section id="tab-reports" role="tabpanel" aria-labelledby="tab-btn-reports" hidden>
<h2>Saved reports</h2>
<div class="table-wrap"><table id="reports-table" class="list"><thead><tr><th><span class="sr">compare</span></th><th>Date</th><th>Model</th><th>Suite</th><th>Pass rate</th><th>Cases</th><th></th></tr></thead><tbody></tbody></table></div>
<div class="row"><button type="button" id="compare" disabled>Compare selected (2)</button><button type="button" id="reports-refresh">Refresh</button></div>
<div id="report-view"></div>
</section>
<section id="tab-production" role="tabpanel" aria-labelledby="tab-btn-production" hidden>
<h2>Production verdicts</h2>
<p class="muted">Trace files (OTLP JSON, JSON lines, protobuf, gzip) or the verdict file of <code>serve --out</code>, inside the project.</p>
<form id="prod-form" class="row"><label>Files <input id="prod-paths" size="48" placeholder="traces/today.jsonl" autocomplete="off"></label><label class="check"><input type="checkbox" id="prod-follow"> Follow</label><button type="submit">Score</button></form>
<p id="prod-state" class="muted" aria-live="polite"></p>
<div id="production-view"></div>
</section>
</main>
</body>
</html>
`;

const CONSOLE_CSS = `
body{padding:0}
.top{display:flex;align-items:center;gap:14px;padding:10px 20px;border-bottom:1px solid var(--line);background:var(--bg2);flex-wrap:wrap}
.brand{font-size:16px}
.tabs{display:flex;gap:4px;flex-wrap:wrap}
.tabs button[aria-selected=true]{background:var(--accent);color:#fff;border-color:var(--accent)}
.top .theme-toggle{margin-left:auto}
main{padding:16px 20px;max-width:1400px;margin:0 auto}
h2{font-size:17px;margin:4px 0 10px}
.status{margin:0;padding:0 20px;min-height:0}.status.error{color:var(--bad);padding:8px 20px}
.split{display:grid;grid-template-columns:minmax(300px,1fr) minmax(320px,1.3fr);gap:18px}
.row{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:8px 0}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:10px;align-items:end;max-width:960px}
.grid label{display:flex;flex-direction:column;gap:4px}.grid label.check{flex-direction:row;align-items:center}
.grid .row{grid-column:1/-1}
table.list td,table.list th{white-space:nowrap}table.list td.file{white-space:normal;overflow-wrap:anywhere}
tr.selected td{background:color-mix(in srgb,var(--accent) 12%,transparent)}
.ed{display:grid;grid-template-columns:auto 1fr;border:1px solid var(--line);border-radius:6px;overflow:hidden;background:var(--bg)}
.gutter{margin:0;border:0;border-radius:0;padding:8px 6px;text-align:right;color:var(--muted);background:var(--bg2);user-select:none;overflow:hidden;max-height:none;font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.gutter span{display:block}.gutter span.err{color:#fff;background:var(--bad);border-radius:3px}
#editor-text{border:0;border-radius:0;resize:vertical;min-height:360px;padding:8px;font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre;overflow:auto;tab-size:2}
#editor-text[readonly]{color:var(--muted)}
.errors{list-style:none;padding:0;margin:6px 0;color:var(--bad)}.errors li.ok{color:var(--ok)}
progress{width:100%;max-width:600px;height:14px}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
#report-view .rv,#production-view .rv{margin-top:16px;border-top:1px solid var(--line);padding-top:12px}
@media (max-width:820px){.split{grid-template-columns:1fr}main{padding:10px}}
`;

export const CONSOLE_STYLE = REPORT_CSS + CONSOLE_CSS;

const APP = String.raw`(function(){
'use strict';
var token=sessionStorage.getItem('runspec-token')||'';
var m=/[#&]token=([^&]+)/.exec(location.hash);
if(m){token=decodeURIComponent(m[1]);sessionStorage.setItem('runspec-token',token);history.replaceState(null,'',location.pathname);}
function $(id){return document.getElementById(id);}
function el(tag,props,children){var e=document.createElement(tag);if(props)Object.keys(props).forEach(function(k){if(k==='text')e.textContent=props[k];else if(k==='className')e.className=props[k];else e.setAttribute(k,props[k]);});(children||[]).forEach(function(c){if(c)e.appendChild(c);});return e;}
function status(msg,isError){var s=$('status');s.textContent=msg||'';s.className='status'+(isError?' error':'');}
function api(method,path,body){
  var init={method:method,headers:{'x-runspec-token':token}};
  if(body!==undefined){init.headers['Content-Type']='application/json';init.body=JSON.stringify(body);}
  return fetch(path,init).then(function(r){return r.json().catch(function(){return {error:'HTTP '+r.status};}).then(function(j){if(!r.ok&&!(r.status===422&&j&&j.errors)){throw new Error(j&&j.error||('HTTP '+r.status));}return j;});});
}
function fail(e){status(e&&e.message?e.message:String(e),true);}
function pct(x){return x==null?'–':(Math.round(x*1000)/10)+'%';}
// ---- tabs ----
var tabs=['suites','run','reports','production'];
function show(name){tabs.forEach(function(t){$('tab-'+t).hidden=t!==name;$('tab-btn-'+t).setAttribute('aria-selected',String(t===name));});if(name==='reports')loadReports();if(name==='run')fillRunSuites();}
tabs.forEach(function(t,i){var b=$('tab-btn-'+t);b.addEventListener('click',function(){show(t);});b.addEventListener('keydown',function(e){if(e.key==='ArrowRight'||e.key==='ArrowLeft'){var n=tabs[(i+(e.key==='ArrowRight'?1:tabs.length-1))%tabs.length];show(n);$('tab-btn-'+n).focus();}});});
$('theme').addEventListener('click',function(){var r=document.documentElement,dark=r.dataset.theme?r.dataset.theme==='dark':matchMedia('(prefers-color-scheme: dark)').matches;r.dataset.theme=dark?'light':'dark';});
// ---- suites ----
var suites=[],current=null,validateTimer=null,info={};
function loadSuites(){return api('GET','/api/suites').then(function(j){suites=j.suites;var tb=$('suites-table').tBodies[0];tb.textContent='';suites.forEach(function(s){
  var b=el('button',{type:'button',text:s.editable?'Edit':'View','data-suite':s.name});b.addEventListener('click',function(){openSuite(s.name);});
  tb.appendChild(el('tr',{'data-suite':s.name,className:current&&current.name===s.name?'selected':''},[el('td',{},[el('code',{text:s.name})]),el('td',{text:s.source}),el('td',{className:'file',text:s.file}),el('td',{text:String(s.cases)}),el('td',{},[b])]));});}).catch(fail);}
function gutter(text,errLines){var g=$('gutter');g.textContent='';var n=text.split('\n').length;for(var i=1;i<=n;i++){g.appendChild(el('span',{text:String(i),className:errLines.indexOf(i)>=0?'err':''}));}}
function showErrors(v){var ul=$('editor-errors');ul.textContent='';var lines=[];
  if(v.ok){ul.appendChild(el('li',{className:'ok',text:'valid: '+v.cases+' case'+(v.cases===1?'':'s')}));}
  else v.errors.forEach(function(e){if(e.line)lines.push(e.line);ul.appendChild(el('li',{className:'error','data-line':e.line==null?'':String(e.line),text:(e.line?'line '+e.line+': ':'')+e.message+(e.hint?' (hint: '+e.hint+')':'')}));});
  gutter($('editor-text').value,lines);}
function validateNow(){if(!current||!current.editable)return Promise.resolve();var text=$('editor-text').value;return api('POST','/api/validate',{name:current.name,text:text}).then(function(v){if($('editor-text').value===text)showErrors(v);}).catch(fail);}
function openEditor(s,text){current=s;$('editor').hidden=false;$('editor-title').textContent=s.name;$('editor-source').textContent=s.editable?('runspec_evals.toml · '+s.source):('read-only: '+s.source+' · '+s.file);
  var ta=$('editor-text');ta.value=text;ta.readOnly=!s.editable;$('save').disabled=!s.editable;$('delete').disabled=!s.editable||!!s.isNew;$('editor-errors').textContent='';gutter(text,[]);
  [].forEach.call(document.querySelectorAll('#suites-table tr[data-suite]'),function(r){r.className=r.getAttribute('data-suite')===s.name?'selected':'';});
  if(s.editable)validateNow();}
function openSuite(name){status('');return api('GET','/api/suites/'+encodeURIComponent(name)).then(function(s){openEditor(s,s.text);}).catch(fail);}
$('editor-text').addEventListener('input',function(){gutter(this.value,[]);clearTimeout(validateTimer);validateTimer=setTimeout(validateNow,250);});
$('editor-text').addEventListener('scroll',function(){$('gutter').scrollTop=this.scrollTop;});
$('save').addEventListener('click',function(){if(!current)return;api('PUT','/api/suites/'+encodeURIComponent(current.name),{text:$('editor-text').value}).then(function(v){showErrors(v);if(v.ok){status('saved '+current.name+' to runspec_evals.toml');current.isNew=false;$('delete').disabled=false;loadSuites();}else status('not saved: fix the errors first',true);}).catch(fail);});
$('delete').addEventListener('click',function(){if(!current||!confirm('Delete suite '+current.name+' from runspec_evals.toml?'))return;var name=current.name;api('DELETE','/api/suites/'+encodeURIComponent(name)).then(function(){status('deleted '+name);current=null;$('editor').hidden=true;loadSuites();}).catch(fail);});
$('run-this').addEventListener('click',function(){if(!current)return;show('run');$('run-suite').value=current.name;});
$('new-suite-form').addEventListener('submit',function(e){e.preventDefault();var name=$('new-suite-name').value.trim();if(!name)return;openEditor({name:name,source:'local',file:'runspec_evals.toml',editable:true,isNew:true},'[[eval]]\nid = "'+name.replace(/[^A-Za-z0-9_-]/g,'-')+'-1"\nprompt = ""\nexpect_tool = ""\n');});
// ---- run ----
var runId=null,pollTimer=null;
function fillRunSuites(){var sel=$('run-suite'),keep=sel.value;sel.textContent='';suites.forEach(function(s){sel.appendChild(el('option',{value:s.name,text:s.name+' ('+s.cases+')'}));});if(keep)sel.value=keep;}
function renderRun(r){$('run-progress-box').hidden=false;var p=$('run-progress');p.max=Math.max(1,r.samplesTotal);p.value=r.samplesDone;
  var text=r.state+': '+r.samplesDone+'/'+(r.samplesTotal||'?')+' samples · '+r.casesDone+' case'+(r.casesDone===1?'':'s')+' done · pass rate so far '+pct(r.passRate);
  if(r.message)text+=' · '+r.message;$('run-state').textContent=text;$('run-state').dataset.state=r.state;
  var running=r.state==='running';$('run-cancel').disabled=!running;$('run-start').disabled=running;
  var o=$('run-open');o.hidden=!r.reportId;o.dataset.report=r.reportId||'';}
function poll(){if(!runId)return;api('GET','/api/runs/'+encodeURIComponent(runId)).then(function(r){renderRun(r);if(r.state==='running')pollTimer=setTimeout(poll,300);else{runId=null;loadReports();}}).catch(fail);}
$('run-form').addEventListener('submit',function(e){e.preventDefault();status('');
  var body={suite:$('run-suite').value,provider:$('run-provider').value.trim(),model:$('run-model').value.trim(),samples:$('run-samples').value,threshold:$('run-threshold').value,toolMode:$('run-toolmode').value,validateArgs:$('run-validate').checked,telemetry:$('run-telemetry').checked};
  api('POST','/api/runs',body).then(function(r){runId=r.id;renderRun(r);clearTimeout(pollTimer);poll();}).catch(fail);});
$('run-cancel').addEventListener('click',function(){if(!runId)return;api('POST','/api/runs/'+encodeURIComponent(runId)+'/cancel',{}).then(renderRun).catch(fail);});
$('run-open').addEventListener('click',function(){var id=this.dataset.report;show('reports');openReport(id);});
// ---- reports ----
var picked=[];
function loadReports(){return api('GET','/api/reports').then(function(j){var tb=$('reports-table').tBodies[0];tb.textContent='';picked=picked.filter(function(id){return j.reports.some(function(r){return r.id===id;});});
  j.reports.forEach(function(r){var cb=el('input',{type:'checkbox','aria-label':'compare '+r.id});cb.checked=picked.indexOf(r.id)>=0;cb.addEventListener('change',function(){picked=picked.filter(function(x){return x!==r.id;});if(cb.checked)picked.push(r.id);if(picked.length>2){var drop=picked.shift();var other=tb.querySelector('tr[data-report="'+CSS.escape(drop)+'"] input');if(other)other.checked=false;}$('compare').disabled=picked.length!==2;});
    var open=el('button',{type:'button',text:'Open'});open.addEventListener('click',function(){openReport(r.id);});
    tb.appendChild(el('tr',{'data-report':r.id},[el('td',{},[cb]),el('td',{text:r.date.replace('T',' ').replace(/\.\d+Z$/,'Z')}),el('td',{text:r.model||r.provider||'–'}),el('td',{text:r.suite||'–'}),el('td',{text:pct(r.passRate)}),el('td',{text:String(r.cases)}),el('td',{},[open])]));});
  $('compare').disabled=picked.length!==2;}).catch(fail);}
function showView(container,html){container.innerHTML=html;window.runspecReport.init(container);var h=container.querySelector('h1');if(h){h.setAttribute('tabindex','-1');h.focus({preventScroll:false});}}
function openReport(id){return api('GET','/api/reports/'+encodeURIComponent(id)).then(function(j){showView($('report-view'),j.html);}).catch(fail);}
$('compare').addEventListener('click',function(){if(picked.length!==2)return;api('GET','/api/compare?a='+encodeURIComponent(picked[0])+'&b='+encodeURIComponent(picked[1])).then(function(j){showView($('report-view'),j.html);}).catch(fail);});
$('reports-refresh').addEventListener('click',loadReports);
// ---- production ----
var followTimer=null,prodSeq=0;
function score(){var paths=$('prod-paths').value.split(/[,\n]/).map(function(s){return s.trim();}).filter(Boolean);if(!paths.length)return;
  var seq=++prodSeq;
  api('POST','/api/production',{paths:paths}).then(function(j){if(seq!==prodSeq)return;var v=$('production-view');var open=[].map.call(v.querySelectorAll('button.expand[aria-expanded=true]'),function(b){return b.getAttribute('aria-controls');});
    v.innerHTML=j.html;window.runspecReport.init(v);open.forEach(function(id){var b=v.querySelector('button.expand[aria-controls="'+CSS.escape(id)+'"]');if(b)b.click();});
    $('prod-state').textContent=j.traces+' verdict'+(j.traces===1?'':'s')+(j.unmatched?' · '+j.unmatched+' trace(s) matched no case or rule':'')+(j.problems.length?' · '+j.problems.join('; '):'');
    clearTimeout(followTimer);if($('prod-follow').checked)followTimer=setTimeout(score,2000);}).catch(fail);}
$('prod-form').addEventListener('submit',function(e){e.preventDefault();status('');score();});
$('prod-follow').addEventListener('change',function(){clearTimeout(followTimer);if(this.checked)score();});
// ---- start ----
api('GET','/api/info').then(function(j){info=j;var dl=$('providers');(j.providers||[]).forEach(function(p){dl.appendChild(el('option',{value:p}));});
  if(j.defaults&&j.defaults.provider)$('run-provider').value=j.defaults.provider;if(j.defaults&&j.defaults.model)$('run-model').value=j.defaults.model;if(j.defaults&&typeof j.defaults.telemetry==='boolean')$('run-telemetry').checked=j.defaults.telemetry;
  if(!j.canRun){$('run-start').disabled=true;status('runs are not available in this console');}}).catch(fail);
loadSuites();
})();`;

/** The console's script: the report view's behaviour, then the console's own. */
export const CONSOLE_SCRIPT = `${REPORT_SCRIPT}\n${APP}`;
