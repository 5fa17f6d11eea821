// pidex export: the page holds every branch of the session; this shows
// the one through the entry chosen in the tree (the path from the root to
// the end of its branch, which the page says for each entry: data-end),
// by walking the entries' parent links. What holds on some branches only
// (an entry's notes, the resume command's) lists them in data-branches.
"use strict";

function exportBranches() {
  const list = document.getElementById("entries");
  const tree = document.getElementById("tree");
  if (!list || !tree) return;
  const entries = new Map();
  for (const li of list.children) entries.set(li.dataset.id, li);
  const onBranches = [...document.querySelectorAll("[data-branches]")].map((el) => [el, JSON.parse(el.dataset.branches)]);
  const current = document.body.dataset.current;

  const show = (end, chosen) => {
    const on = new Set();
    for (let id = end; id && !on.has(id);) {
      on.add(id);
      const li = entries.get(id);
      id = li ? li.dataset.parent : "";
    }
    for (const [id, li] of entries) li.hidden = !on.has(id);
    for (const [el, ends] of onBranches) el.hidden = !ends.includes(end);
    for (const li of entries.values()) li.classList.toggle("dim", li.querySelector(".entry-head .note:not([hidden])") !== null);
    for (const a of tree.querySelectorAll("a[data-id]")) {
      a.parentElement.classList.toggle("onpath", on.has(a.dataset.id));
      a.parentElement.classList.toggle("sel", a.dataset.id === chosen);
    }
    document.getElementById("branch-note").hidden = end === current;
    document.body.dataset.shown = end;
    const target = entries.get(chosen);
    if (target) target.scrollIntoView({ block: "start" });
  };

  tree.addEventListener("click", (e) => {
    const a = e.target.closest("a[data-end]");
    if (!a) return;
    e.preventDefault();
    document.body.classList.remove("tree-open"); // a phone's drawer closes
    show(a.dataset.end, a.dataset.id);
  });
  const back = document.getElementById("current-branch");
  if (back) back.addEventListener("click", (e) => { e.preventDefault(); show(current, current); });

  // A link to an entry (file.html#e-ID) opens its branch.
  const fromHash = () => {
    if (!location.hash.startsWith("#e-")) return;
    const id = decodeURIComponent(location.hash.slice(3));
    const a = [...tree.querySelectorAll("a[data-end]")].find((x) => x.dataset.id === id);
    if (a) show(a.dataset.end, id);
  };
  window.addEventListener("hashchange", fromHash);
  fromHash();
}

document.addEventListener("DOMContentLoaded", exportBranches);
