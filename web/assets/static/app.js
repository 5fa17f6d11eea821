// pidex serve: the little behaviour the pages need, hand-written, no
// library. Everything it puts on the page comes from the server's own
// escaped HTML (fetched and swapped in) or is set with textContent. The
// session page's tree panel and copy buttons, and the local times, are
// shared.js's (internal/htmlview), which every page loads first.
"use strict";

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

// The cost and activity reports count days and hours in the browser's
// time zone.
function browserZone() {
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!tz) return;
  for (const a of document.querySelectorAll('a[href="/cost"], a[href="/activity"]')) a.href = a.getAttribute("href") + "?tz=" + encodeURIComponent(tz);
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
  liveForms();
  marks();
  live();
});
