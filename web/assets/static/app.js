// pidex serve: the little behaviour the pages need, hand-written, no
// library. Everything it puts on the page comes from the server's own
// escaped HTML (fetched and swapped in) or is set with textContent.
"use strict";

// Times: the server writes UTC; show them in the browser's time zone.
function localTimes(root) {
  for (const t of root.querySelectorAll("time[datetime]")) {
    const d = new Date(t.getAttribute("datetime"));
    if (!isNaN(d)) {
      t.textContent = d.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
      t.title = t.getAttribute("datetime");
    }
  }
}

// swap replaces the element with id from a fetched page (or fragment),
// keeping which folds are open and where the page was scrolled.
async function swap(id, url, partial) {
  const u = new URL(url, location.href);
  if (partial) u.searchParams.set("partial", "1");
  const res = await fetch(u, { headers: { "Accept": "text/html" } });
  const html = await res.text();
  const el = document.getElementById(id);
  if (!el) return;
  const doc = new DOMParser().parseFromString(partial ? `<div id="${id}">${html}</div>` : html, "text/html");
  const fresh = doc.getElementById(id);
  if (!fresh) return;
  const open = new Set([...el.querySelectorAll("details[open]")].map(pathOf));
  const y = window.scrollY;
  el.replaceChildren(...fresh.childNodes);
  for (const d of el.querySelectorAll("details")) if (open.has(pathOf(d))) d.open = true;
  localTimes(el);
  window.scrollTo(0, y);
}

// pathOf names a fold by its entry and position, to reopen it after a swap.
function pathOf(d) {
  const entry = d.closest("[id]");
  const all = entry ? [...entry.querySelectorAll("details")] : [];
  return (entry ? entry.id : "") + "/" + all.indexOf(d);
}

// Forms marked data-live update their results as you type.
function liveForms() {
  for (const form of document.querySelectorAll("form[data-live]")) {
    let timer, seq = 0;
    const run = () => {
      const params = new URLSearchParams(new FormData(form));
      for (const [k, v] of [...params]) if (v === "") params.delete(k);
      const url = form.getAttribute("action") + "?" + params.toString();
      history.replaceState(null, "", url);
      const mine = ++seq;
      swap(form.dataset.live, url, true).then(() => { if (mine === seq) document.body.dataset.loaded = String(mine); });
    };
    form.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(run, 150); });
    form.addEventListener("change", () => { clearTimeout(timer); timer = setTimeout(run, 50); });
    form.addEventListener("submit", (e) => { e.preventDefault(); clearTimeout(timer); run(); });
  }
}

// Live: the server says "change" when session files changed; the page
// fetches itself again and swaps in its main part.
function live() {
  const dot = document.getElementById("live");
  if (!window.EventSource) return;
  const es = new EventSource("/events");
  let pending = false;
  es.onopen = () => dot && dot.classList.add("on");
  es.onerror = () => dot && dot.classList.remove("on");
  es.addEventListener("change", () => {
    if (pending) return;
    pending = true;
    setTimeout(() => {
      pending = false;
      swap("main", location.href, false).then(() => {
        liveForms();
        document.body.dataset.updated = String(Date.now());
      });
    }, 100);
  });
}

// The session page: keep the chosen tree entry in view.
function treeInView() {
  const tree = document.querySelector("aside.tree");
  const sel = tree && tree.querySelector("li.sel");
  if (sel) tree.scrollTop = sel.offsetTop - tree.offsetTop - tree.clientHeight / 2;
}

// The tree panel: as wide as the reader makes it (drag its left edge, or
// wider/narrower), or hidden; on a phone a drawer over the page. The
// width and whether it is hidden are kept for the next session page.
function treePanel() {
  const tree = document.getElementById("tree");
  if (!tree) return;
  const body = document.body, narrow = () => window.matchMedia("(max-width: 700px)").matches;
  const store = (k, v) => { try { v === null ? localStorage.removeItem(k) : localStorage.setItem(k, v); } catch (e) {} };
  const load = (k) => { try { return localStorage.getItem(k); } catch (e) { return null; } };
  const setWidth = (px) => {
    px = Math.round(Math.max(200, Math.min(px, window.innerWidth * 0.7)));
    document.documentElement.style.setProperty("--tree-w", px + "px");
    store("pidex.treeWidth", String(px));
  };
  const w = parseInt(load("pidex.treeWidth"), 10);
  if (w > 0) document.documentElement.style.setProperty("--tree-w", w + "px");
  const toggle = document.getElementById("tree-toggle");
  const show = (on) => {
    if (narrow()) {
      body.classList.toggle("tree-open", on);
    } else {
      body.classList.toggle("tree-hidden", !on);
      store("pidex.treeHidden", on ? null : "1");
    }
    if (toggle) toggle.setAttribute("aria-expanded", String(on));
    if (on) treeInView();
  };
  if (!narrow() && load("pidex.treeHidden") === "1") show(false);
  if (narrow() && toggle) toggle.setAttribute("aria-expanded", "false");
  if (toggle) toggle.addEventListener("click", () => show(narrow() ? !body.classList.contains("tree-open") : true));
  const close = document.getElementById("tree-close");
  if (close) close.addEventListener("click", () => show(false));
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && body.classList.contains("tree-open")) show(false); });
  const step = (d) => setWidth(tree.getBoundingClientRect().width + d);
  const wider = document.getElementById("tree-wider"), narrower = document.getElementById("tree-narrower");
  if (wider) wider.addEventListener("click", () => step(120));
  if (narrower) narrower.addEventListener("click", () => step(-120));
  const handle = document.getElementById("tree-resize");
  if (handle) handle.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    handle.setPointerCapture(e.pointerId);
    body.classList.add("resizing");
    const right = tree.getBoundingClientRect().right;
    const move = (ev) => setWidth(right - ev.clientX);
    const up = () => { body.classList.remove("resizing"); handle.removeEventListener("pointermove", move); handle.removeEventListener("pointerup", up); };
    handle.addEventListener("pointermove", move);
    handle.addEventListener("pointerup", up);
  });
}

// A search's words highlighted in the conversation: "next match" walks
// through them.
function marks() {
  const next = document.getElementById("next-mark");
  if (!next) return;
  let i = -1;
  next.addEventListener("click", (e) => {
    e.preventDefault();
    const all = [...document.querySelectorAll("mark.q")];
    if (!all.length) return;
    if (i >= 0 && all[i]) all[i].classList.remove("current");
    i = (i + 1) % all.length;
    all[i].classList.add("current");
    const fold = all[i].closest("details");
    if (fold) fold.open = true;
    all[i].scrollIntoView({ block: "center" });
  });
}

// The cost report counts days in the browser's time zone.
function browserZone() {
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!tz) return;
  for (const a of document.querySelectorAll('a[href="/cost"]')) a.href = "/cost?tz=" + encodeURIComponent(tz);
  const input = document.querySelector('form input[name="tz"]');
  if (input && !input.value) {
    input.value = tz;
    const u = new URL(location.href);
    if (!u.searchParams.has("tz")) {
      u.searchParams.set("tz", tz);
      location.replace(u);
    }
  }
}

document.addEventListener("DOMContentLoaded", () => {
  browserZone();
  localTimes(document);
  liveForms();
  treePanel();
  treeInView();
  marks();
  live();
});
