// Hover: what a mark is, and the object of its group as it was at the
// instant under the pointer. Click: that object whole, in the side panel.
(function () {
  "use strict";
  const tip = document.getElementById("tip");
  const detail = document.getElementById("detail");
  const cache = {};

  function objects(svg) {
    const id = svg.dataset.objects;
    if (!(id in cache)) {
      const el = document.getElementById(id);
      cache[id] = el ? JSON.parse(el.textContent) : {};
    }
    return cache[id];
  }

  // The run's time (seconds) under the pointer.
  function timeAt(svg, ev) {
    const p = svg.createSVGPoint();
    p.x = ev.clientX;
    p.y = ev.clientY;
    const q = p.matrixTransform(svg.getScreenCTM().inverse());
    const x0 = +svg.dataset.x0, x1 = +svg.dataset.x1, until = +svg.dataset.until;
    return Math.min(until, Math.max(0, ((q.x - x0) / (x1 - x0)) * until));
  }

  // The version in force at t: the last one written at or before it.
  function versionAt(list, t) {
    let found = null;
    for (const v of list || []) {
      if (v[0] <= t + 1e-9) found = v;
      else break;
    }
    return found;
  }

  function stateWord(state) {
    const k = Object.keys(state || {})[0] || "unknown";
    const reason = (state[k] && state[k].reason) ? " (" + state[k].reason + ")" : "";
    return k + reason;
  }

  function podSummary(o) {
    const s = o.status || {};
    const lines = ["Pod " + o.metadata.namespace + "/" + o.metadata.name + ": phase " + (s.phase || "Pending") +
      (o.metadata.deletionTimestamp ? ", terminating" : "")];
    const conds = (s.conditions || []).map(c => c.type + "=" + c.status).join(", ");
    if (conds) lines.push(conds);
    for (const c of (s.initContainerStatuses || []).concat(s.containerStatuses || [])) {
      lines.push(c.name + ": " + stateWord(c.state) + (c.ready ? ", ready" : "") + ", restarts " + c.restartCount);
    }
    return lines.join("\n");
  }

  function slicesSummary(list) {
    const lines = [];
    for (const s of list) {
      for (const e of s.endpoints || []) {
        const c = e.conditions || {};
        const who = e.targetRef ? e.targetRef.name : (e.addresses || []).join(",");
        lines.push(s.metadata.name + ": " + who + " ready=" + c.ready + " serving=" + c.serving + " terminating=" + c.terminating);
      }
    }
    return lines.length ? lines.join("\n") : "no endpoints";
  }

  // The mark under the pointer, its group's object key and the version then.
  function lookup(ev) {
    const mark = ev.target.closest && ev.target.closest("[data-tip]");
    if (!mark) return null;
    const svg = mark.closest("svg.swimlanes");
    const group = mark.closest("g.group");
    const lane = mark.closest("g.lane");
    const text = (lane ? lane.dataset.lane + ": " : "") + mark.dataset.tip;
    const out = { mark, text, key: null, version: null, t: null };
    if (svg) out.t = timeAt(svg, ev);
    if (svg && group && group.dataset.obj) {
      out.key = group.dataset.obj;
      out.version = versionAt(objects(svg)[out.key], out.t);
    }
    return out;
  }

  function summary(found) {
    if (!found.version) return "";
    const o = found.version[1];
    return found.key.startsWith("pod:") ? podSummary(o) : slicesSummary(o);
  }

  document.addEventListener("mouseover", ev => {
    const found = lookup(ev);
    if (!found) { tip.hidden = true; return; }
    let text = found.text;
    if (found.t !== null) text += "\nat " + found.t.toFixed(3) + "s";
    const s = summary(found);
    if (s) text += "\n\n" + s + "\n\n(click for the whole object)";
    tip.textContent = text;
    tip.hidden = false;
    place(ev);
  });
  document.addEventListener("mousemove", ev => { if (!tip.hidden) place(ev); });
  document.addEventListener("mouseout", ev => {
    if (ev.target.closest && ev.target.closest("[data-tip]")) tip.hidden = true;
  });

  function place(ev) {
    const w = tip.offsetWidth, h = tip.offsetHeight;
    const x = ev.clientX + 14 + w > window.innerWidth ? ev.clientX - w - 14 : ev.clientX + 14;
    const y = ev.clientY + 14 + h > window.innerHeight ? Math.max(0, ev.clientY - h - 14) : ev.clientY + 14;
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }

  document.addEventListener("click", ev => {
    if (ev.target.id === "close") { detail.hidden = true; return; }
    const found = lookup(ev);
    if (!found || !found.version) return;
    const o = found.version[1];
    const name = found.key.startsWith("pod:") ? "Pod " + o.metadata.name : "EndpointSlices of " + found.mark.closest("g.group").dataset.title.split(":")[0];
    detail.querySelector("h3").textContent = name + " at " + found.t.toFixed(3) + "s (written at " + found.version[0].toFixed(3) + "s)";
    detail.querySelector("pre").textContent = JSON.stringify(o, null, 2);
    detail.hidden = false;
  });
})();
