// What pidex serve's pages and an exported HTML file (which holds it
// inline) share: times in the reader's zone, and the session page's tree
// panel and copy buttons. Hand-written, no library; it sets no markup
// from text.
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

// Copy buttons: <button data-copy="ID"> copies the text of the element
// with that id. The clipboard API needs a secure context and the page's
// focus; where it fails the text is selected, for the reader to copy.
// Delegated from the document, so that a page whose parts are swapped in
// again (pidex serve's live updates) keeps them working.
function copyButtons() {
  document.addEventListener("click", (e) => {
    const button = e.target.closest && e.target.closest("button[data-copy]");
    if (!button) return;
    const el = document.getElementById(button.dataset.copy);
    if (!el) return;
    const text = el.textContent;
    const done = (msg) => {
      const was = button.dataset.label || button.textContent;
      button.dataset.label = was;
      button.textContent = msg;
      setTimeout(() => { button.textContent = was; }, 1500);
    };
    const select = () => {
      const range = document.createRange();
      range.selectNodeContents(el);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      let ok = false;
      try { ok = document.execCommand("copy"); } catch (err) {}
      done(ok ? "Copied" : "Selected: press Ctrl+C");
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(() => done("Copied"), select);
    } else {
      select();
    }
  });
}

document.addEventListener("DOMContentLoaded", () => {
  localTimes(document);
  treePanel();
  treeInView();
  copyButtons();
});
