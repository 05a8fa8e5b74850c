"""The report page's inline style and script (no network: nothing is fetched when the page opens).

The script filters the suite table by status, rule, verdict, country, level and free text, sorts
it by any column header, hides the sections of the runs filtered out, and mirrors the filters in the URL hash (#status=failed&rule=red_light)
so a filtered view can be linked or opened directly.
"""

from __future__ import annotations

__all__ = ["CSS", "JS"]

CSS = """
body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1280px;padding:16px;color:#222}
h1{font-size:22px;margin:4px 0 12px} h2{font-size:17px;margin:28px 0 8px;border-top:1px solid #ddd;padding-top:14px}
h3{font-size:14px;margin:14px 0 6px}
table{border-collapse:collapse;font-size:13px} th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f3f3f3;cursor:pointer;user-select:none;white-space:nowrap} th.asc::after{content:' \\25B2'} th.desc::after{content:' \\25BC'}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.status-completed{color:#1a7a3a;font-weight:600}.status-failed{color:#c02020;font-weight:600}
.status-agent_error,.status-sim_error,.status-timeout,.status-invalid{color:#8a5a00;font-weight:600}
.v-violated{color:#c02020}.v-satisfied{color:#1a7a3a}.v-excused{color:#b07000}.v-not_applicable{color:#888}
#filters{display:flex;flex-wrap:wrap;gap:10px;align-items:center;margin:8px 0;padding:8px;background:#f7f7f7;border:1px solid #e3e3e3}
#filters label{font-size:12px;color:#555} #count{font-weight:600;margin-left:auto}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:8px 0}
.card{border:1px solid #ddd;border-radius:6px;padding:6px 12px;min-width:120px}.card b{display:block;font-size:20px}
.media{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}
.media img,.media video{max-width:100%;border:1px solid #ccc} .plots img{max-width:100%;display:block}
.run{scroll-margin-top:10px} .muted{color:#777} code{background:#f3f3f3;padding:0 3px}
details{margin:4px 0} pre{white-space:pre-wrap;font-size:12px;background:#f7f7f7;padding:6px}
.matrix td{min-width:90px;text-align:center}
"""

JS = r"""
(function(){
  const table=document.getElementById('runs'); if(!table) return;
  const body=table.tBodies[0], rows=Array.from(body.rows);
  const keys=['status','rule','verdict','country','level','q'];
  const ctl=Object.fromEntries(keys.map(k=>[k,document.getElementById('f-'+k)]));
  const count=document.getElementById('count');
  function verdicts(r){return (r.dataset.rules||'').split(' ').filter(Boolean).map(x=>x.split(':'));}
  function apply(){
    const f=Object.fromEntries(keys.map(k=>[k,ctl[k].value.trim()]));
    let n=0;
    for(const r of rows){
      const vs=verdicts(r);
      let ok=(!f.status||r.dataset.status===f.status)&&(!f.country||r.dataset.country===f.country)&&(!f.level||r.dataset.level===f.level);
      if(ok&&(f.rule||f.verdict)) ok=vs.some(([id,v])=>(!f.rule||id===f.rule)&&(!f.verdict||v===f.verdict));
      if(ok&&f.q) ok=r.textContent.toLowerCase().includes(f.q.toLowerCase());
      r.hidden=!ok; if(ok) n++;
      const sec=document.getElementById('run-'+r.dataset.k); if(sec) sec.hidden=!ok;
    }
    count.textContent=n+' of '+rows.length+' runs';
  }
  function toHash(){
    const parts=keys.filter(k=>ctl[k].value).map(k=>k+'='+encodeURIComponent(ctl[k].value));
    history.replaceState(null,'',parts.length?'#'+parts.join('&'):location.pathname+location.search);
  }
  function fromHash(){
    const h=location.hash.slice(1); if(h.indexOf('=')<0) return;
    const p=new URLSearchParams(h);
    for(const k of keys){ctl[k].value=p.get(k)||'';}
  }
  for(const k of keys){ctl[k].addEventListener(k==='q'?'input':'change',()=>{apply();toHash();});}
  window.addEventListener('hashchange',()=>{fromHash();apply();});
  Array.from(table.tHead.rows[0].cells).forEach((th,col)=>th.addEventListener('click',()=>{
    const asc=!th.classList.contains('asc');
    for(const c of table.tHead.rows[0].cells) c.classList.remove('asc','desc');
    th.classList.add(asc?'asc':'desc');
    const val=r=>{const c=r.cells[col]; const v=c.dataset.v!==undefined?c.dataset.v:c.textContent.trim(); const x=parseFloat(v); return isNaN(x)||v===''?v:x;};
    rows.sort((a,b)=>{const x=val(a),y=val(b); const d=(typeof x==='number'&&typeof y==='number')?x-y:String(x).localeCompare(String(y)); return asc?d:-d;});
    for(const r of rows) body.appendChild(r);
  }));
  fromHash(); apply();
})();
"""
